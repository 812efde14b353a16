import Foundation
import Synchronization
import Transport

/// Scans for, connects to and remembers peripherals, like `CBCentralManager`.
///
/// ```swift
/// let central = CentralManager(transport: .kernel("hci0"))
/// for await ad in try central.scan(services: [BluetoothUUID(0x180D)]) { ... }
/// ```
///
/// Peripherals remembered in the ``Store`` (their GATT cache, subscriptions and bonds)
/// come back through ``restoredPeripherals`` and
/// ``retrievePeripherals(identifiers:)``, like `willRestoreState`.
public final class CentralManager: Sendable {
    /// Where known peripherals are remembered.
    public let store: any Store
    /// The transport this manager was opened on.
    public let transport: BluetoothTransport
    /// How this manager's links pair (IO capabilities, MITM, bonding, automatic pairing,
    /// the agent that answers for the user).
    public let pairing: PairingConfiguration
    let backend: any ControllerBackend
    let clock = MonotonicClock()
    let known = Mutex<[UUID: Peripheral]>([:])
    /// Our identity and bonds, as the backend sees them.
    let bondKeeper: StoreBondKeeper
    /// The scans running, to end them all in ``stopScan()`` and ``resetAdapter()``.
    let scans = ScanRegistry()

    final class ScanRegistry: Sendable {
        private let state = Mutex((active: [Int: AsyncStream<Advertisement>.Continuation](), next: 0))
        func withLock<R>(_ body: (inout (active: [Int: AsyncStream<Advertisement>.Continuation], next: Int)) -> R) -> R {
            state.withLock { body(&$0) }
        }
    }

    /// Opens a central on `transport`, remembering peripherals in `store` (in memory
    /// unless given; pass a ``FileStore`` to survive restarts).
    ///
    /// - Parameter snoop: a btsnoop capture (datalink 1002) of the session, which tshark,
    ///   btmon and `attune decode` read. Over the userland host it holds every H4 packet
    ///   in both directions; the kernel owns HCI, so over it (and over a ``MemoryRadio``)
    ///   each link is recorded as the HCI a controller would have exchanged: LE Connection
    ///   Complete, its ATT PDUs as ACL-framed L2CAP, Disconnection Complete.
    ///
    /// ```swift
    /// let central = CentralManager(transport: .h4(endpoint), snoop: try SnoopFile(path: "session.btsnoop"))
    /// ```
    ///
    /// - Parameter pairing: how links pair on the userland host: by default by themselves
    ///   when an attribute needs it, Just Works (no IO capabilities), bonding asked. Give
    ///   it a ``PairingAgent`` to answer passkey and numeric-comparison requests.
    public init(transport: BluetoothTransport = .default, store: any Store = InMemoryStore(), snoop: SnoopFile? = nil,
                pairing: PairingConfiguration = PairingConfiguration()) {
        self.transport = transport
        self.store = store
        self.pairing = pairing
        let keeper = StoreBondKeeper(store: store)
        bondKeeper = keeper
        backend = transport.makeBackend(snoop: snoop, bonds: keeper, pairing: pairing)
        keeper.setListener { [weak self] event in self?.bondEvent(event) }
    }

    /// Whether the controller is usable, like `CBCentralManager.state`.
    public var state: ManagerState { backend.status.state }

    /// The state with its cause, whose description names the fix.
    public var status: ManagerStatus { backend.status }

    /// Controller input the userland host dropped and counted, by kind (Number Of
    /// Completed Packets for handles with no connection, completions for commands not in
    /// flight, malformed events...): hostile or broken controllers show here instead of
    /// in memory. All zero on the kernel transport, where the kernel owns HCI.
    public var controllerWarnings: HostWarningCounts { backend.hostWarnings }

    /// The current state, then every change.
    public var stateUpdates: AsyncStream<ManagerState> { backend.stateUpdates() }

    /// Scans for advertisements, like `scanForPeripherals(withServices:options:)`.
    ///
    /// - Parameters:
    ///   - services: only devices advertising one of these (in a complete or incomplete
    ///     list, or as service data); nil for all.
    ///   - allowDuplicates: every report, like `CBCentralManagerScanOptionAllowDuplicatesKey`.
    ///     Otherwise each device once, its scan response merged into its advertisement (a
    ///     scannable advertisement waits up to ``ScanTable/defaultScanResponseWait`` for
    ///     it), and again only when its data or name changes, marked
    ///     ``Advertisement/isUpdate``.
    ///   - deviceLimit: the most devices the scan remembers; past it the least recently
    ///     seen is forgotten and, if it advertises again, discovered anew. Keeps memory
    ///     flat among thousands of random addresses.
    /// - Returns: advertisements until the consumer stops iterating (which stops the scan).
    ///   The radio cannot be paused, so a consumer that falls more than 1024 reports
    ///   behind misses the newest ones; the next report it gets says how many in
    ///   ``Advertisement/lostBefore``.
    /// - Throws: ``AttuneError/unavailable(_:)`` unless powered on.
    public func scan(services: [BluetoothUUID]? = nil, allowDuplicates: Bool = false,
                     deviceLimit: Int = ScanTable.defaultLimit)
        throws(AttuneError) -> AsyncStream<Advertisement> {
        let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self, bufferingPolicy: .bufferingOldest(1024))
        let lost = Mutex(0)
        let filter = ScanFilter(ScanTable(limit: deviceLimit, allowDuplicates: allowDuplicates)) { advertisement in
            // The count goes with the first report the buffer takes after a drop.
            lost.withLock { lost in
                guard services.map({ advertisement.advertises(anyOf: $0) }) ?? true else { return }
                var delivered = advertisement
                delivered.lostBefore = lost
                if case .dropped = continuation.yield(delivered) { lost += 1 } else { lost = 0 }
            }
        }
        let token = try backend.startScanning { incoming in
            // What the transport already dropped (a host whose event buffer overflowed)
            // travels with this report; it is counted once, here, not kept in the table.
            var report = incoming
            lost.withLock { $0 += report.lostBefore }
            report.lostBefore = 0
            filter.receive(report)
        }
        let backend = self.backend
        let scanID = scans.withLock { scans in
            defer { scans.next += 1 }
            scans.active[scans.next] = continuation
            return scans.next
        }
        continuation.onTermination = { [scans] _ in
            backend.stopScanning(token)
            filter.close()
            _ = scans.withLock { $0.active.removeValue(forKey: scanID) }
        }
        return stream
    }

    /// Stops every scan of this manager, like `stopScan()`: each ``scan(services:allowDuplicates:deviceLimit:)``
    /// stream ends, and this returns once the controller has stopped scanning.
    public func stopScan() async {
        endScans()
        await backend.settle()
    }

    /// Ends every scan stream of this manager (each one's termination stops its scan).
    func endScans() {
        let active = scans.withLock { Array($0.active.values) }
        for continuation in active { continuation.finish() }
    }

    /// The peripheral that sent an advertisement (the same object every time).
    public func peripheral(for advertisement: Advertisement) -> Peripheral {
        peripheral(address: advertisement.address, type: advertisement.addressType ?? .random,
                   name: advertisement.localName)
    }

    /// The peripheral at an address (the same object every time).
    ///
    /// A resolvable private address that a bonded peripheral's stored IRK resolves is that
    /// peripheral: the one bonded object comes back, and it connects to the address it
    /// advertises now.
    public func peripheral(address: BluetoothAddress, type: BluetoothAddressType = .public,
                           name: String? = nil) -> Peripheral {
        let id = PeripheralIdentifier.make(address: address, type: type)
        let record = store.record(for: id)
        if record == nil, known.withLock({ $0[id] }) == nil, ResolvablePrivateAddress.isResolvable(address, type: type),
           let bonded = bondedRecord(for: address, type: type), bonded.identifier != id {
            let p = peripheral(address: bonded.address, type: bonded.addressType, name: name ?? bonded.name)
            p.airAddress.withLock { $0 = (address, type) }
            return p
        }
        return known.withLock { known in
            if let existing = known[id] { return existing }
            let p = Peripheral(address: address, type: type, name: name, record: record, backend: backend,
                               store: store, clock: clock)
            known[id] = p
            return p
        }
    }

    /// Connects and returns once the connection is ready to use: MTU exchanged, the GATT
    /// cache validated through the Database Hash or the database discovered, and earlier
    /// subscriptions written again.
    ///
    /// - Parameters:
    ///   - timeout: how long the link may take to come up; 30 s by default.
    ///   - reconnect: what to do when the connection later drops.
    ///   - discoverDatabase: discover the whole database while connecting (or validate
    ///     the cached one), so later discovery calls need no traffic. Off: each
    ///     `discover…` call runs its own GATT procedure, as in Core Bluetooth.
    ///   - preferredMTU: the ATT_MTU to ask for in the MTU exchange (517, the most ATT
    ///     allows, by default); the server's answer may lower it.
    ///   - discoveryTimeout: how long discovering the whole database may take, however
    ///     slowly or endlessly the server answers (60 s by default; nil: no limit). Past
    ///     it the connection goes on without a cache, and discovery calls ask the peer.
    /// - Throws: ``AttuneError/connectionTimeout``, ``AttuneError/connectionFailed(_:)``,
    ///   ``AttuneError/peripheralDisconnected(_:)`` (dropped while setting up),
    ///   ``AttuneError/cancelled`` or ``AttuneError/unavailable(_:)``.
    public func connect(_ peripheral: Peripheral, timeout: Duration = .seconds(30),
                        reconnect: ReconnectPolicy = .off, discoverDatabase: Bool = true,
                        preferredMTU: Int = 517, discoveryTimeout: Duration? = .seconds(60)) async throws(AttuneError) {
        if let cause = backend.status.cause { throw .unavailable(cause) }
        try await peripheral.connect(timeout: timeout, reconnect: reconnect, discoverDatabase: discoverDatabase,
                                     preferredMTU: preferredMTU, discoveryTimeout: discoveryTimeout)
    }

    /// Connects to an address; see ``connect(_:timeout:reconnect:)``.
    @discardableResult
    public func connect(_ address: BluetoothAddress, type: BluetoothAddressType = .public,
                        timeout: Duration = .seconds(30), reconnect: ReconnectPolicy = .off)
        async throws(AttuneError) -> Peripheral {
        let p = peripheral(address: address, type: type)
        try await connect(p, timeout: timeout, reconnect: reconnect)
        return p
    }

    /// Disconnects, or abandons a connect attempt or pending reconnect, like
    /// `cancelPeripheralConnection(_:)`. Subscriptions end with ``AttuneError/cancelled``.
    public func cancelConnection(_ peripheral: Peripheral) async {
        await peripheral.cancelConnection()
    }

    /// Disconnects every peripheral this manager knows and returns once each link is
    /// down, or after `timeout` for a controller that no longer answers: what a process
    /// does before it exits (on SIGINT, say), so that peers see the link end (HCI
    /// Disconnect, Remote User Terminated Connection, on the userland host) instead of
    /// waiting out their supervision timeout. Auto-connect marks are cleared as by
    /// ``cancelConnection(_:)``, so call this only when the application is done with them.
    public func cancelAllConnections(timeout: Duration = .seconds(2)) async {
        let peripherals = known.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for p in peripherals { group.addTask { await p.disconnectAndWait(timeout: timeout) } }
        }
    }

    /// Known peripherals by identifier: ones seen in this process or remembered in the
    /// store, like `retrievePeripherals(withIdentifiers:)`.
    public func retrievePeripherals(identifiers: [UUID]) -> [Peripheral] {
        identifiers.compactMap { id in
            if let p = known.withLock({ $0[id] }) { return p }
            if let record = store.record(for: id) {
                return peripheral(address: record.address, type: record.addressType, name: record.name)
            }
            if let (address, type) = PeripheralIdentifier.address(of: id) {
                return peripheral(address: address, type: type)
            }
            return nil
        }
    }

    /// Every peripheral the store remembers, with its cache and subscriptions, ready to
    /// be connected again: what `willRestoreState` hands Core Bluetooth apps.
    public var restoredPeripherals: [Peripheral] {
        retrievePeripherals(identifiers: store.records().map(\.identifier))
    }

    /// Reconnects every remembered peripheral marked `autoConnect`, each with automatic
    /// reconnect; returns the ones that connected and the errors of the others. Those
    /// keep trying in the background with the backoff, and their lifecycle events say
    /// when they connect (until ``cancelConnection(_:)``).
    public func resumeAutoConnect(timeout: Duration = .seconds(30), backoff: Backoff = .standard)
        async -> (connected: [Peripheral], failed: [UUID: AttuneError]) {
        var connected: [Peripheral] = []
        var failed: [UUID: AttuneError] = [:]
        for record in store.records() where record.autoConnect {
            let p = peripheral(address: record.address, type: record.addressType, name: record.name)
            do throws(AttuneError) {
                if let cause = backend.status.cause { throw .unavailable(cause) }
                try await p.connect(timeout: timeout, reconnect: .automatic(backoff), retryFirst: true)
                connected.append(p)
            } catch {
                failed[record.identifier] = error
            }
        }
        return (connected, failed)
    }
}
