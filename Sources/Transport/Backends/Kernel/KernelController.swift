import Capture
import HCI
import Synchronization

/// The kernel's Bluetooth stack as a controller: HCI sockets for scanning and
/// advertising on the adapter, L2CAP LE sockets on the ATT channel for links.
///
/// Its state comes from the kernel: listing adapters fails with the errno that says
/// AF_BLUETOOTH is missing or privilege is lacking, and the adapter's flags say whether
/// it exists, does LE and is up.
final class KernelController: ControllerBackend {
    let adapter: String
    private struct State {
        var scanners: [Int: Task<Void, Never>] = [:]
        /// Scans and advertising being stopped, for ``settle()``.
        var stopping: [Task<Void, Never>] = []
        var nextToken = 1
        var advertising: (advertiser: KernelLEAdvertiser, listener: L2CAPATTListener, task: Task<Void, Never>)?
        /// The next connection handle a capture shows: the kernel does not tell its own.
        var nextHandle: UInt16 = 1
        /// Answers the kernel's pairing requests when no bluetoothd does; started on the
        /// first connection, advertising or security raise.
        var agent: KernelPairingAgent?
        var agentChecked = false
        /// Setting the agent's adapter up and loading the stored bonds into the kernel.
        var agentSetup: Task<Void, Never>?
        /// Our role on the links to each peer, for the kernel's legacy LTKs (one per
        /// direction, of which a bond keeps ours).
        var roles: [BluetoothAddress: PairingKeys.Role] = [:]
    }
    /// Peers whose link role is remembered, at most.
    private static let rolesKept = 64
    private let state = Mutex(State())
    /// Where links record their traffic (`snoop:`), if anywhere.
    private let snoop: SnoopFile?
    /// Where the kernel's keys go after pairing, and the bonds it gets back on start.
    private let bonds: (any BondKeeper)?
    /// How our agent answers the kernel (when bluetoothd does not).
    private let pairing: PairingConfiguration

    init(adapter: String, snoop: SnoopFile? = nil, bonds: (any BondKeeper)? = nil,
         pairing: PairingConfiguration = PairingConfiguration()) {
        self.adapter = adapter
        self.snoop = snoop
        self.bonds = bonds
        self.pairing = pairing
    }

    /// A link on `socket`, whose security raises start the pairing agent if needed.
    private func link(_ socket: L2CAPATTSocket, peer: BluetoothAddress, type: BluetoothAddressType,
                      isCentral: Bool) -> any ATTLink {
        state.withLock { s in
            if s.roles[peer] == nil, s.roles.count >= Self.rolesKept { s.roles.removeAll() }
            s.roles[peer] = isCentral ? .central : .peripheral
        }
        return recorded(KernelATTLink(socket: socket, peerAddress: peer, peerAddressType: type,
                                      requiredSecurity: pairing.kernelSecurityLevel,
                                      prepareSecurity: { [weak self] in self?.startPairingAgent() }), isCentral: isCentral)
    }

    /// Pairing waits for someone to answer the kernel's User Confirmation and Passkey
    /// requests: bluetoothd when it runs (with its own agent and keys), otherwise our
    /// agent, answering from ``pairing``. Returns the agent's setup, which sets the IO
    /// capability and bondable mode and loads the stored bonds into the kernel.
    @discardableResult
    private func startPairingAgent() -> Task<Void, Never>? {
        state.withLock { s -> Task<Void, Never>? in
            guard !s.agentChecked else { return s.agentSetup }
            s.agentChecked = true
            // The kernel's keys become bonds in the managers' store as each arrives.
            let collector = Mutex(KernelBondCollector())
            let bonds = self.bonds
            let onKey: @Sendable (KernelPairingKey) -> Void = { [weak self] key in
                guard let bonds, let keys = collector.withLock({ $0.add(key, role: { self?.role(toward: $0) }) }) else { return }
                bonds.paired(keys)
            }
            guard !BluetoothDaemonPresence.isRunning(), case .success(let found) = lookUp(),
                  let agent = try? KernelPairingAgent(handler: ConfiguredPairingHandler(pairing), adapters: [found.index],
                                                      onKey: onKey)
            else { return nil }
            s.agent = agent
            let setup = Task { [weak self] () -> Void in await self?.prepare(agent, adapterIndex: found.index) }
            s.agentSetup = setup
            return setup
        }
    }

    private func prepare(_ agent: KernelPairingAgent, adapterIndex index: UInt16) async {
        try? await agent.prepare(adapters: [index])
        try? await agent.setBondable(pairing.bonding, adapterIndex: index)
        // Each load replaces the kernel's list: with nothing stored, keys others loaded stay.
        guard let stored = bonds?.allBonds(), !stored.isEmpty else { return }
        let keys = KernelStoredKeys.keys(for: stored, adapterIndex: index)
        _ = try? await agent.loadKeys(longTermKeys: keys.longTermKeys, identityResolvingKeys: keys.identityResolvingKeys,
                                      adapterIndex: index)
    }

    private func role(toward peer: BluetoothAddress) -> PairingKeys.Role? {
        state.withLock { $0.roles[peer] }
    }

    /// The link as the engines see it: recorded when a capture is open.
    private func recorded(_ link: KernelATTLink, isCentral: Bool) -> any ATTLink {
        guard let snoop else { return link }
        let handle = state.withLock { s -> UInt16 in
            defer { s.nextHandle = s.nextHandle == 0x0EFF ? 1 : s.nextHandle + 1 }
            return s.nextHandle
        }
        return SnoopedATTLink(link, file: snoop, handle: handle, isCentral: isCentral)
    }

    /// The adapter as the kernel lists it, or why it cannot be used.
    enum Lookup: Equatable {
        case success(KernelAdapter)
        case failure(ManagerStateCause)
    }

    private func lookUp() -> Lookup {
        do {
            return Self.lookUp(adapter, in: try KernelAdapter.list())
        } catch {
            return .failure(Self.cause(error, adapter))
        }
    }

    /// `adapter` in the kernel's listing: usable only when it is there, does LE and is up.
    /// These rules decide a kernel manager's state (``status(of:)``).
    static func lookUp(_ adapter: String, in adapters: [KernelAdapter]) -> Lookup {
        guard let found = adapters.first(where: { $0.name == adapter }) else { return .failure(.noAdapter(adapter)) }
        guard found.supportsLowEnergy else { return .failure(.controllerFailed("\(adapter) does not support Bluetooth LE")) }
        guard found.isUp else { return .failure(.adapterDown(adapter)) }
        return .success(found)
    }

    /// The manager's status a lookup leads to.
    static func status(of lookup: Lookup) -> ManagerStatus {
        switch lookup {
        case .success: .poweredOn
        case .failure(let cause): ManagerStatus(cause: cause)
        }
    }

    /// Beside bluetoothd, bluetoothd keeps the keys and forgets them only when asked;
    /// otherwise our agent has the kernel forget them (mgmt Unpair Device), disconnecting
    /// the peer if it is connected.
    func forgetBond(with address: BluetoothAddress, type: BluetoothAddressType) async -> BondRemoval {
        if BluetoothDaemonPresence.isRunning() { return .keptByBluetoothd }
        let found: KernelAdapter
        switch lookUp() {
        case .success(let adapter): found = adapter
        // A kernel without Bluetooth, or without this adapter, holds no keys for it there.
        case .failure(.noBluetoothSupport), .failure(.noAdapter): return .kernel(removed: false)
        case .failure(let cause): return .kernelUnreachable(cause.description)
        }
        await startPairingAgent()?.value
        guard let agent = state.withLock({ $0.agent }) else {
            return .kernelUnreachable("the kernel's management channel did not open (it needs CAP_NET_ADMIN)")
        }
        let peer = KernelPeer(adapterIndex: found.index, address: address, addressType: type.isPublic ? .lePublic : .leRandom)
        do {
            return .kernel(removed: try await agent.unpair(peer))
        } catch {
            return .kernelUnreachable("\(error)")
        }
    }

    var address: BluetoothAddress {
        guard case .success(let a) = lookUp() else { return BluetoothAddress(rawValue: 0) }
        return a.address
    }

    var addressType: BluetoothAddressType { .public }

    var status: ManagerStatus { Self.status(of: lookUp()) }

    /// Every change of the adapter's state, from the kernel's Device events (registered,
    /// unregistered, up, down: power, unplugging and rfkill all arrive as these). Each
    /// event is answered with the state read afresh, and only changes are passed on.
    /// When the kernel has no Bluetooth at all, the stream says so once and ends.
    func statusUpdates() -> AsyncStream<ManagerStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ManagerStatus.self, bufferingPolicy: .bufferingNewest(16))
        let monitor: KernelAdapterMonitor
        do {
            monitor = try KernelAdapterMonitor()
        } catch {
            continuation.yield(ManagerStatus(cause: Self.cause(error, adapter)))
            continuation.finish()
            return stream
        }
        // Listen first, then read the state changes are measured from. The monitor's
        // reader passes an event only to listeners that exist when it reads it; a task
        // that listened for itself could start after the change it should hear. Under
        // load in the kernel lab, a down went unheard that way, and the up after it then
        // changed nothing, so neither was reported.
        let events = monitor.events()
        let initial = status
        let task = Task { [weak self] in
            var last = initial
            for await _ in events {
                guard let self else { break }
                let now = self.status
                if now != last {
                    last = now
                    continuation.yield(now)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            monitor.close()
        }
        return stream
    }

    private func index() throws(AttuneError) -> UInt16 {
        switch lookUp() {
        case .success(let a): return a.index
        case .failure(let cause): throw .unavailable(cause)
        }
    }

    /// Power-cycles the adapter through the kernel's management channel (mgmt Set
    /// Powered off, then on) rather than the HCIDEVRESET ioctl: mgmt is how bluetoothd
    /// itself powers adapters, so a bluetoothd beside us sees the change (New Settings)
    /// instead of a controller reset behind its back, and the kernel ends every link
    /// properly (HCI_Disconnect to each peer, every L2CAP socket closed), where the ioctl
    /// drops its connections without telling the peers. Powered on, the kernel resets
    /// the controller and initialises it again. The state reads ``ManagerState/poweredOff``
    /// in between, from the kernel's own Device events.
    ///
    /// Our scans and advertising end first: their HCI sockets outlive the power cycle,
    /// and would stay bound to a controller that no longer scans or advertises for them.
    func resetController() async throws(AttuneError) {
        let index = try index()
        let scans = state.withLock { s -> [Task<Void, Never>] in
            defer { s.scanners = [:] }
            return Array(s.scanners.values)
        }
        for scan in scans { scan.cancel() }
        state.withLock { $0.stopping += scans }
        stopAdvertising()
        await settle()
        // The pairing agent's channel when we run one; else a channel that answers no
        // adapter's requests (bluetoothd, if it runs, is the agent there), only commands.
        let channel: KernelPairingAgent
        do {
            channel = try state.withLock({ $0.agent }) ?? KernelPairingAgent(adapters: [])
        } catch {
            throw .unavailable(Self.cause(error, adapter))
        }
        do {
            try await channel.setPowered(false, adapterIndex: index)
            try await channel.setPowered(true, adapterIndex: index)
        } catch let error as MgmtCommandError {
            switch error.reason {
            case .timedOut: throw .controllerTimeout("\(adapter): \(error)")
            case .status(0x14): throw .unavailable(.permissionDenied)
            default: throw .unavailable(.controllerFailed("\(adapter): \(error)"))
            }
        } catch {
            throw .unavailable(Self.cause(error, adapter))
        }
    }

    func startScanning(_ report: @escaping @Sendable (Advertisement) -> Void) throws(AttuneError) -> Int {
        let scanner: KernelLEScanner
        do {
            scanner = try KernelLEScanner(adapterIndex: try index())
        } catch let error as AttuneError {
            throw error
        } catch {
            throw .unavailable(Self.cause(error, adapter))
        }
        let task = Task {
            defer { scanner.close() }
            do {
                // Duplicates are filtered above the controller, per scan.
                try await scanner.start(filterDuplicates: false)
                // Legacy and extended reports alike: the kernel (or another host on the
                // controller) may scan with the extended commands while we listen.
                while !Task.isCancelled {
                    for r in try await scanner.nextAdvertisingReports() { report(Advertisement(r)) }
                }
            } catch {}
            try? await scanner.stop()
        }
        return state.withLock { s in
            defer { s.nextToken += 1 }
            s.scanners[s.nextToken] = task
            return s.nextToken
        }
    }

    func stopScanning(_ token: Int) {
        state.withLock { s in
            guard let task = s.scanners.removeValue(forKey: token) else { return }
            task.cancel()
            s.stopping.append(task)
        }
    }

    func settle() async {
        let stopping = state.withLock { s in
            defer { s.stopping = [] }
            return s.stopping
        }
        for task in stopping { await task.value }
    }

    func connect(to address: BluetoothAddress, type: BluetoothAddressType) async throws(AttuneError) -> any ATTLink {
        _ = try index()
        // Bound to this adapter's address: unbound, the kernel routes the connection
        // through whichever LE adapter it picks, not the one the user named.
        let local = self.address
        // Stored bonds in the kernel before the link, so it encrypts with them.
        await startPairingAgent()?.value
        do {
            // The lifecycle owns the timeout; the socket's own is a backstop.
            let socket = try await L2CAPATTSocket.connect(to: address,
                                                          type: type == .random ? LEAddressType.random : .public,
                                                          from: local, timeout: .seconds(3600))
            return link(socket, peer: address, type: type, isCentral: true)
        } catch is CancellationError {
            throw .cancelled
        } catch let error as KernelTransportError {
            if Task.isCancelled { throw .cancelled }
            if let reason = error.disconnectReason { throw .connectionFailed(.hci(HCIStatus(reason.rawValue))) }
            if let cause = ManagerStateCause(errno: error.errno, adapter: adapter) { throw .unavailable(cause) }
            throw .connectionFailed(.transport("\(error)"))
        } catch {
            throw Task.isCancelled ? .cancelled : .connectionFailed(.transport("\(error)"))
        }
    }

    func startAdvertising(_ parameters: AdvertisingParameters,
                          accept: @escaping @Sendable (any ATTLink) -> Void) throws(AttuneError) {
        let index = try index()
        stopAdvertising()
        let advertiser: KernelLEAdvertiser, listener: L2CAPATTListener
        do {
            advertiser = try KernelLEAdvertiser(adapterIndex: index)
            // Only centrals that reach this adapter: unbound, the listener would
            // accept links on every adapter of the machine.
            listener = try L2CAPATTListener(address: address)
        } catch {
            throw .unavailable(Self.cause(error, adapter))
        }
        let (data, scanResponse) = Self.split(parameters)
        // A central may pair (or encrypt with a bond) as soon as it connects.
        startPairingAgent()
        let task = Task {
            do {
                try await advertiser.start(LEAdvertisingParameters(type: parameters.isConnectable ? 0x00 : 0x03),
                                           data: data, scanResponse: scanResponse)
                while !Task.isCancelled {
                    let socket = try await listener.accept()
                    let peer = socket.peer.address
                    accept(self.link(socket, peer: peer, type: socket.peer.addressType == .random ? .random : .public,
                                     isCentral: false))
                    // Legacy advertising stopped with the connection: the peripheral
                    // manager resumes it through setAdvertisingEnabled while it has room.
                }
            } catch {}
        }
        state.withLock { $0.advertising = (advertiser, listener, task) }
    }

    func stopAdvertising() {
        guard let current = state.withLock({ s -> (KernelLEAdvertiser, L2CAPATTListener, Task<Void, Never>)? in
            defer { s.advertising = nil }
            return s.advertising
        }) else { return }
        current.2.cancel()
        current.1.close()
        let advertiser = current.0
        let stop = Task {
            try? await advertiser.setEnabled(false)
            advertiser.close()
        }
        state.withLock { $0.stopping.append(stop) }
    }

    func setAdvertisingEnabled(_ enabled: Bool) {
        guard let advertiser = state.withLock({ $0.advertising?.advertiser }) else { return }
        Task { try? await advertiser.setEnabled(enabled) }
    }

    /// Legacy advertising carries 31 bytes: when everything does not fit, the name
    /// moves to the scan response.
    static func split(_ parameters: AdvertisingParameters) -> (data: [UInt8], scanResponse: [UInt8]) {
        let all = parameters.advertisingData
        if all.count <= 31 { return (all, []) }
        var rest = parameters
        rest.localName = nil
        var name: [UInt8] = []
        if let localName = parameters.localName {
            let bytes = Array(localName.utf8)
            let complete = bytes.count <= 29
            name = [UInt8(min(bytes.count, 29) + 1), complete ? 0x09 : 0x08] + bytes.prefix(29)
        }
        return (Array(rest.advertisingData.prefix(31)), name)
    }

    /// Why opening or listing the kernel's Bluetooth failed, for a manager on `adapter`.
    static func cause(_ error: any Error, _ adapter: String) -> ManagerStateCause {
        if let e = error as? KernelTransportError, let cause = ManagerStateCause(errno: e.errno, adapter: adapter) { return cause }
        return .controllerFailed("\(error)")
    }
}
