import EventLoop
import Glibc
import HCI
import Synchronization
import Transport

/// `KernelLabProbe pairing`: our userland host on hci0 (the HCI user channel; the guest
/// script takes hci0 down first) pairs with the kernel's own SMP on hci1, in both roles,
/// in one boot:
/// - central: our host connects to the kernel's advertiser, is refused a value that needs
///   encryption, pairs (LE Secure Connections Just Works), and reads it;
/// - peripheral: the kernel connects to our advertising host and raises `BT_SECURITY`
///   medium; our Security Manager answers as responder and the link encrypts.
/// - Passkey Entry in both roles, a second host on user:hci0 with a fixed passkey (see
///   ``pairWithPasskey(log:kernel:agent:loopback:keys:)``), authenticated on both sides.
/// Our mgmt agent answers for the kernel, and its key decoders report the LTKs the kernel
/// hands out, which Load Long Term Keys then gives back.
extension KernelLabProbe {
    /// Our host's static random address (two top bits set).
    static let userlandAddress = BluetoothAddress(0xC2, 0x4B, 0x00, 0x00, 0x00, 0x01)

    static func pairingScenario(log: ProbeLog) async {
        let adapters = (try? KernelAdapter.list()) ?? []
        guard let kernel = adapters.first(where: { $0.index == 1 }) else {
            log.fail("pairing: adapters", "need hci1 under the kernel")
            return
        }
        let agent: KernelPairingAgent
        let loopback = LoopbackPairingHandler()
        let keys = KeyCollector()
        let answered = AnsweredCollector()
        do {
            agent = try KernelPairingAgent(handler: loopback, answerTimeout: .seconds(20),
                                           onKey: keys.add, onAnswer: answered.add)
        } catch {
            log.fail("pairing: mgmt agent", "\(error)")
            return
        }
        defer { agent.close() }
        // Start from no keys: Load Long Term Keys with none replaces whatever the kernel has.
        do {
            let load = try await agent.loadKeys(longTermKeys: [], identityResolvingKeys: [], adapterIndex: kernel.index)
            log.pass("pairing: kernel keys cleared", "\(load)")
            try await agent.setBondable(true, adapterIndex: kernel.index)
            log.pass("pairing: hci1 bondable")
        } catch {
            log.fail("pairing: prepare hci1", "\(error)")
        }

        guard let host = await startUserlandHost(log: log, label: "pairing: userland host on user:hci0") else { return }
        let events = HostEventCollector(host.events)

        await pairAsCentral(log: log, host: host, kernel: kernel, agent: agent, keys: keys)
        await pairAsPeripheral(log: log, host: host, events: events, kernel: kernel, agent: agent, keys: keys)
        host.close()
        if let third = adapters.first(where: { $0.index == 2 }) {
            await kernelPairsWithItself(log: log, agent: agent, keys: keys, peripheral: kernel, central: third)
        }
        await pairWithPasskey(log: log, kernel: kernel, agent: agent, loopback: loopback, keys: keys)
        log.info("pairing: agent answered \(answered.all.map { "\($0.request.kind) → \($0.answer.map { "\($0)" } ?? "shown")" })")
    }

    /// Our central pairs with the kernel's peripheral and reads the protected value.
    static func pairAsCentral(log: ProbeLog, host: UserlandHost, kernel: KernelAdapter, agent: KernelPairingAgent,
                              keys: KeyCollector, model: String = "Just Works", authenticated: Bool = false) async {
        let listener: L2CAPATTListener
        let advertiser: KernelLEAdvertiser
        do {
            listener = try L2CAPATTListener(address: kernel.address)
            advertiser = try KernelLEAdvertiser(adapterIndex: kernel.index)
            try await advertiser.start(data: [0x02, 0x01, 0x06])
        } catch {
            log.fail("pairing central: kernel peripheral on hci1", "\(error)")
            return
        }
        defer { listener.close(); advertiser.close() }
        async let accepted = listener.accept()
        let info: ConnectionInfo
        do {
            let completion = try await host.perform(.connect(peer: kernel.address, peerAddressType: 0x00,
                                                             parameters: ConnectionParameters(), timeout: .seconds(15)))
            guard case .connected(let connected) = completion else {
                log.fail("pairing central: connect", "\(completion)")
                _ = try? await accepted
                return
            }
            info = connected
        } catch {
            log.fail("pairing central: connect", "\(error)")
            listener.close()
            _ = try? await accepted
            return
        }
        let server: L2CAPATTSocket
        do {
            server = try await accepted
        } catch {
            log.fail("pairing central: accept", "\(error)")
            return
        }
        log.pass("pairing central: connect user:hci0 → hci1", "handle \(info.handle)")
        let serving = Task { await ProtectedGATTServer.serve(server) }
        defer { serving.cancel(); server.close() }
        guard let channel = host.attChannel(for: info.handle) else {
            log.fail("pairing central: ATT channel", "none for handle \(info.handle)")
            return
        }
        // Read By Type (0x08) for the protected characteristic over the whole range.
        let read: [UInt8] = [0x08, 0x01, 0x00, 0xFF, 0xFF] + ProtectedGATTServer.protected.littleEndianBytes
        let before = await exchange(read, on: channel)
        if let before, before.count == 5, before[0] == 0x01, before[4] == 0x0F {
            log.pass("pairing central: refused before pairing", "Insufficient Encryption (0x0f)")
        } else {
            log.fail("pairing central: refused before pairing", "got \(before.map { hexString($0, empty: "") } ?? "nothing")")
        }

        let start = KernelEventLoop.now()
        do {
            try await host.raiseSecurity(on: info.handle)
            let took = elapsed(since: start)
            let level = (try? server.securityLevel()) ?? .low
            let ours = host.linkSecurity(on: info.handle)
            level >= (authenticated ? .high : .medium) && ours.encrypted && ours.authenticated == authenticated
                ? log.pass("pairing central: \(model)", "\(ms(took)) ms (kernel side \(level), ours authenticated \(ours.authenticated))")
                : log.fail("pairing central: \(model)", "kernel side \(level), ours encrypted \(ours.encrypted) authenticated \(ours.authenticated)")
        } catch {
            log.fail("pairing central: \(model)", "\(error)")
            return
        }
        let after = await exchange(read, on: channel)
        if let after, after.first == 0x09, after.count >= 4, Array(after.suffix(from: 4)) == ProtectedGATTServer.value {
            log.pass("pairing central: read over the encrypted link", "\(after.count - 4) bytes")
        } else {
            log.fail("pairing central: read over the encrypted link", "got \(after.map { hexString($0, empty: "") } ?? "nothing")")
        }
        let keyCheck = "pairing central: kernel New Long Term Key" + (authenticated ? " (\(model))" : "")
        if let ltk = await keys.longTermKey(for: userlandAddress) {
            ltk.type.isSecureConnections && ltk.type.isAuthenticated == authenticated
                ? log.pass(keyCheck, describe(ltk))
                : log.fail(keyCheck, "not LE Secure Connections \(authenticated ? "authenticated" : "unauthenticated"): \(describe(ltk))")
        } else {
            log.fail(keyCheck, "none for \(userlandAddress): \(keys.summary)")
        }
        _ = try? await host.perform(.disconnect(handle: info.handle, reason: 0x13))
    }

    /// The kernel's central pairs with our peripheral.
    static func pairAsPeripheral(log: ProbeLog, host: UserlandHost, events: HostEventCollector, kernel: KernelAdapter,
                                 agent: KernelPairingAgent, keys: KeyCollector, model: String = "Just Works",
                                 authenticated: Bool = false) async {
        // The first pairing's keys would make the kernel ask its agent about a re-pairing.
        _ = try? await agent.loadKeys(longTermKeys: [], identityResolvingKeys: [], adapterIndex: kernel.index)
        keys.reset()
        do {
            _ = try await host.perform(.startAdvertising(AdvertisingConfiguration(data: [0x02, 0x01, 0x06])))
        } catch {
            log.fail("pairing peripheral: advertise on user:hci0", "\(error)")
            return
        }
        let client: L2CAPATTSocket
        do {
            client = try await L2CAPATTSocket.connect(to: userlandAddress, type: .random, from: kernel.address, timeout: .seconds(15))
        } catch {
            log.fail("pairing peripheral: connect hci1 → user:hci0", "\(error)")
            return
        }
        defer { client.close() }
        guard let info = await events.peripheralConnection() else {
            log.fail("pairing peripheral: connect hci1 → user:hci0", "our host saw no connection")
            return
        }
        log.pass("pairing peripheral: connect hci1 → user:hci0", "handle \(info.handle), peer \(info.peerAddress)")
        let start = KernelEventLoop.now()
        do {
            try await client.raiseSecurity(to: authenticated ? .high : .medium, timeout: .seconds(25))
            let took = elapsed(since: start)
            let level = try client.securityLevel()
            let ours = host.linkSecurity(on: info.handle)
            ours.encrypted && ours.authenticated == authenticated && level >= (authenticated ? .high : .medium)
                ? log.pass("pairing peripheral: \(model)", "\(ms(took)) ms (kernel side \(level), ours authenticated \(ours.authenticated))")
                : log.fail("pairing peripheral: \(model)", "kernel \(level), ours encrypted \(ours.encrypted) authenticated \(ours.authenticated)")
        } catch {
            log.fail("pairing peripheral: \(model)", "\(error)")
            return
        }
        let keyCheck = "pairing peripheral: kernel New Long Term Key" + (authenticated ? " (\(model))" : "")
        guard let ltk = await keys.longTermKey(for: userlandAddress) else {
            log.fail(keyCheck, "none for \(userlandAddress): \(keys.summary)")
            return
        }
        ltk.type.isSecureConnections && ltk.type.isAuthenticated == authenticated
            ? log.pass(keyCheck, describe(ltk))
            : log.fail(keyCheck, "not LE Secure Connections \(authenticated ? "authenticated" : "unauthenticated"): \(describe(ltk))")
        log.info("pairing peripheral: other keys \(keys.summary)")
        guard !authenticated else {
            _ = try? await host.perform(.disconnect(handle: info.handle, reason: 0x13))
            return
        }
        do {
            let load = try await agent.loadKeys(longTermKeys: [ltk], identityResolvingKeys: [], adapterIndex: kernel.index)
            load == .loaded(longTermKeys: 1, identityResolvingKeys: 0)
                ? log.pass("pairing: Load Long Term Keys takes the key back", "\(load)")
                : log.fail("pairing: Load Long Term Keys takes the key back", "\(load)")
        } catch {
            log.fail("pairing: Load Long Term Keys takes the key back", "\(error)")
        }
        // What `attune unpair --transport hci1` does: the kernel forgets the key and
        // drops the link; asked again, it has nothing to forget.
        let peer = KernelPeer(adapterIndex: kernel.index, address: userlandAddress, addressType: .leRandom)
        do {
            let first = try await agent.unpair(peer)
            first ? log.pass("pairing: Unpair Device forgets the key") : log.fail("pairing: Unpair Device forgets the key", "Not Paired")
            let second = try await agent.unpair(peer)
            !second ? log.pass("pairing: Unpair Device again says Not Paired")
                : log.fail("pairing: Unpair Device again says Not Paired", "the kernel still had a key")
        } catch {
            log.fail("pairing: Unpair Device forgets the key", "\(error)")
        }
        _ = try? await host.perform(.disconnect(handle: info.handle, reason: 0x13))
    }

    /// The passkey both sides know in the Passkey Entry cases.
    static let labPasskey: UInt32 = 314_159

    /// Our host on user:hci0, pairing as `pairing` says (Just Works by default).
    static func startUserlandHost(log: ProbeLog, label: String,
                                  pairing: PairingConfiguration = PairingConfiguration()) async -> UserlandHost? {
        do {
            let host = try UserlandHost(endpoint: .userChannel(device: 0),
                                        configuration: HostConfiguration(randomAddress: userlandAddress, pairingEnabled: true),
                                        routesATTToChannels: true, security: pairing.securityManager, passkey: pairing.passkey)
            let info = try await host.start()
            log.pass(label, "ACL \(info.aclDataPacketLength) × \(info.totalACLDataPackets)")
            return host
        } catch {
            log.fail(label, "\(error)")
            return nil
        }
    }

    /// Passkey Entry both ways with a passkey both sides know: our host (a second one on
    /// user:hci0, KeyboardDisplay with MITM and `PairingConfiguration(passkey:)`, so it
    /// displays the fixed passkey) against the kernel on hci1 (KeyboardOnly, its agent
    /// entering the same passkey). As central we pair with the kernel's peripheral; as
    /// peripheral the kernel's central raises `BT_SECURITY` high. Both keys authenticated.
    static func pairWithPasskey(log: ProbeLog, kernel: KernelAdapter, agent: KernelPairingAgent,
                                loopback: LoopbackPairingHandler, keys: KeyCollector) async {
        do {
            _ = try await agent.loadKeys(longTermKeys: [], identityResolvingKeys: [], adapterIndex: kernel.index)
            try await agent.setIOCapability(.keyboardOnly, adapterIndex: kernel.index)
            try await agent.setBondable(true, adapterIndex: kernel.index)
        } catch {
            log.fail("pairing passkey: prepare hci1", "\(error)")
            return
        }
        loopback.useFixedPasskey(labPasskey)
        defer { loopback.useFixedPasskey(nil) }
        keys.reset()
        let pairing = PairingConfiguration(ioCapabilities: .keyboardDisplay, requiresMITM: true, passkey: labPasskey)
        guard let host = await startUserlandHost(log: log, label: "pairing passkey: userland host on user:hci0",
                                                 pairing: pairing) else { return }
        defer { host.close() }
        let events = HostEventCollector(host.events)
        await pairAsCentral(log: log, host: host, kernel: kernel, agent: agent, keys: keys,
                            model: "Passkey Entry", authenticated: true)
        await pairAsPeripheral(log: log, host: host, events: events, kernel: kernel, agent: agent, keys: keys,
                               model: "Passkey Entry", authenticated: true)
        _ = try? await agent.setIOCapability(.noInputNoOutput, adapterIndex: kernel.index)
    }

    static func describe(_ key: KernelLongTermKey) -> String {
        "\(key.type), \(key.encryptionSize) octets, central \(key.central), store hint \(key.storeHint), value \(key.value)"
    }

    /// Sends one ATT request and returns the first PDU that comes back, or nil after 10 s.
    static func exchange(_ request: [UInt8], on channel: UserlandATTChannel) async -> [UInt8]? {
        channel.send(request)
        return await within(.seconds(10)) {
            while true {
                let batch = await channel.receive()
                if batch.isEmpty { return nil }
                for case .received(let pdu) in batch { return pdu }
                if batch.contains(where: { if case .received = $0 { false } else { true } }) { return nil }
            }
        }
    }

    /// `body`'s result, or nil when `limit` passes first (the body may run on; the probe
    /// ends soon after).
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> T?) async -> T? {
        let first = FirstResult<T>()
        return await withCheckedContinuation { continuation in
            first.begin(continuation)
            Task { first.finish(await body()) }
            Task {
                try? await Task.sleep(for: limit)
                first.finish(nil)
            }
        }
    }
}

/// Resumes its continuation with the first result only.
final class FirstResult<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T?, Never>?>(nil)

    func begin(_ waiting: CheckedContinuation<T?, Never>) { continuation.withLock { $0 = waiting } }

    func finish(_ value: T?) { continuation.withLock { $0.take() }?.resume(returning: value) }
}

/// The keys the agent reports, kept for the checks.
final class KeyCollector: Sendable {
    private let keys = Mutex<[KernelPairingKey]>([])

    @Sendable func add(_ key: KernelPairingKey) { keys.withLock { $0.append(key) } }

    func reset() { keys.withLock { $0 = [] } }

    /// The LTK the kernel reported for `address`, waiting up to 5 s for it (the event
    /// follows key distribution, just after the link encrypts).
    func longTermKey(for address: BluetoothAddress) async -> KernelLongTermKey? {
        for _ in 0..<250 {
            let found = keys.withLock { all in
                all.lazy.compactMap { key -> KernelLongTermKey? in
                    if case .longTermKey(let ltk) = key, ltk.peer.address == address { return ltk }
                    return nil
                }.first
            }
            if let found { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Kinds and peers only: never a key.
    var summary: String {
        keys.withLock { all in
            all.map { key -> String in
                switch key {
                case .longTermKey(let k): "LTK \(k.type) \(k.peer)"
                case .identityResolvingKey(let k): "IRK \(k.peer)"
                case .signatureKey(let k): "CSRK \(k.kind) \(k.peer)"
                }
            }.joined(separator: "; ")
        }
    }
}

/// The agent's answers, kept for the report.
final class AnsweredCollector: Sendable {
    private let answered = Mutex<[KernelPairingAgent.Answered]>([])

    @Sendable func add(_ one: KernelPairingAgent.Answered) { answered.withLock { $0.append(one) } }

    var all: [KernelPairingAgent.Answered] { answered.withLock { $0 } }
}

/// Our host's connections as its event stream reports them.
final class HostEventCollector: Sendable {
    private let connections = Mutex<[ConnectionInfo]>([])

    init(_ events: HostEvents) {
        Task { [weak self] in
            for await event in events {
                if case .connected(let info) = event { self?.connections.withLock { $0.append(info) } }
            }
        }
    }

    /// The first peripheral-role connection, waiting up to 5 s.
    func peripheralConnection() async -> ConnectionInfo? {
        for _ in 0..<250 {
            if let found = connections.withLock({ $0.first { $0.role == .peripheral } }) { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
