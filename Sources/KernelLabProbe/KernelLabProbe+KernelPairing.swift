import EventLoop
import Transport

/// With a third controller (hci2, also the kernel's), the kernel pairs with itself through
/// our mgmt agent: Passkey Entry (hci1 displays, hci2 enters what Passkey Notify showed)
/// and Numeric Comparison (both confirm the same six digits), each set up with mgmt Set IO
/// Capability. (Our userland host's Passkey Entry against the kernel: pairWithPasskey.)
extension KernelLabProbe {
    static func kernelPairsWithItself(log: ProbeLog, agent: KernelPairingAgent, keys: KeyCollector,
                                      peripheral: KernelAdapter, central: KernelAdapter) async {
        let models: [(name: String, peripheral: KernelIOCapability, central: KernelIOCapability, expected: String)] = [
            ("Passkey Entry", .displayOnly, .keyboardOnly, "passkey entry"),
            ("Numeric Comparison", .displayYesNo, .displayYesNo, "numeric comparison"),
        ]
        for model in models {
            do {
                // No keys on either side, so each pairing starts from scratch.
                _ = try await agent.loadKeys(longTermKeys: [], identityResolvingKeys: [], adapterIndex: peripheral.index)
                _ = try await agent.loadKeys(longTermKeys: [], identityResolvingKeys: [], adapterIndex: central.index)
                try await agent.setIOCapability(model.peripheral, adapterIndex: peripheral.index)
                try await agent.setIOCapability(model.central, adapterIndex: central.index)
                try await agent.setBondable(true, adapterIndex: central.index)
            } catch {
                log.fail("kernel pairing \(model.name): prepare", "\(error)")
                continue
            }
            keys.reset()
            let listener: L2CAPATTListener
            let advertiser: KernelLEAdvertiser
            do {
                listener = try L2CAPATTListener(address: peripheral.address)
                advertiser = try KernelLEAdvertiser(adapterIndex: peripheral.index)
                try await advertiser.start(data: [0x02, 0x01, 0x06])
            } catch {
                log.fail("kernel pairing \(model.name): advertise", "\(error)")
                continue
            }
            let client: L2CAPATTSocket
            let server: L2CAPATTSocket
            do {
                client = try await L2CAPATTSocket.connect(to: peripheral.address, type: .public, from: central.address,
                                                          timeout: .seconds(15))
                // A link that outlived the last case would carry no new ATT channel to accept.
                guard let socket = await within(.seconds(10), { try? await listener.accept() }) else {
                    throw KernelTransportError(kind: .timedOut, operation: "accept")
                }
                server = socket
            } catch {
                log.fail("kernel pairing \(model.name): connect hci\(central.index) → hci\(peripheral.index)", "\(error)")
                listener.close()
                advertiser.close()
                continue
            }
            let start = KernelEventLoop.now()
            do {
                try await client.raiseSecurity(to: .high, timeout: .seconds(25))
                let took = elapsed(since: start)
                let ltk = await keys.longTermKey(for: central.address)
                let authenticated = ltk?.type.isAuthenticated == true
                let level = (try? server.securityLevel()) ?? .low
                authenticated && level >= .high
                    ? log.pass("kernel pairing \(model.name)", "\(ms(took)) ms, \(ltk.map(describe) ?? "")")
                    : log.fail("kernel pairing \(model.name)", "peripheral \(level), LTK \(ltk.map(describe) ?? "none"): \(keys.summary)")
            } catch {
                log.fail("kernel pairing \(model.name)", "\(error)")
            }
            // The peripheral closes first: the kernel bug in KERNEL-LAB.md needs a central
            // closing after the peer dropped the link with a request pending, and none is.
            // Then wait for the link itself to go: the kernel drops an LE link a moment after
            // its last channel closes, and the next case needs a new one.
            let monitor = try? HCIDisconnectionMonitor(adapterIndex: central.index)
            let since = KernelEventLoop.now()
            server.close()
            client.close()
            listener.close()
            advertiser.close()
            if let monitor, let handle = client.connectionHandle {
                let reason = await monitor.reason(forHandle: handle, since: since, timeout: .seconds(10))
                log.info("kernel pairing \(model.name): link down, \(reason.map { "\($0)" } ?? "no Disconnection Complete seen")")
                monitor.close()
            }
        }
    }
}
