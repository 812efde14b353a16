import Transport

/// Publishes services, advertises and answers centrals, like `CBPeripheralManager`.
///
/// The GATT server engine does the protocol work: every ATT request, CCCDs per central,
/// prepared writes, robust caching, and Service Changed when ``add(_:)`` or
/// ``remove(_:)`` change the database. Stored values are answered by the server;
/// dynamic ones arrive on ``requests`` for ``respond(to:withResult:)``.
public actor PeripheralManager {
    /// The transport this manager was opened on.
    public nonisolated let transport: BluetoothTransport
    /// Where the bonds of centrals that paired with us are kept (a record per central,
    /// keyed by its identity address), with our host identity.
    public nonisolated let store: any Store
    /// How centrals pair with us: our IO capabilities and requirements, and the agent
    /// that answers for the user.
    public nonisolated let pairing: PairingConfiguration
    let backend: any ControllerBackend
    let clock = MonotonicClock()
    var server: GATTServer

    struct Connected {
        var link: any ATTLink
        var central: Central
        var reader: Task<Void, Never>
        /// Whose bond verifies the central's signed writes, once one arrived.
        var signing: SignedWriteVerification = .unchecked
    }
    var connected: [ConnectionID: Connected] = [:]
    var nextConnection: UInt64 = 1
    /// What ``startAdvertising(localName:serviceUUIDs:manufacturerData:serviceData:txPowerLevel:appearance:connectable:)``
    /// asked for; nil when advertising is off by the application's wish.
    var advertising: AdvertisingParameters?
    /// Whether the controller advertises now: a connection stops connectable
    /// advertising, and the manager resumes it while it has room for another central.
    var advertisingEnabled = false
    /// Callers of ``disconnectAll(timeout:)``, resumed once no central is connected.
    var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
    /// At most this many centrals at once; nil: as many as the controller accepts.
    public private(set) var maximumCentrals: Int?

    /// How many requests ``requests`` holds for the application at most.
    public static let requestQueueCapacity = 4096

    /// Reads and writes of dynamic characteristics, each waiting for
    /// ``respond(to:withResult:)`` (writes without response excepted). At most
    /// ``requestQueueCapacity`` wait; one more is answered at once with Insufficient
    /// Resources and reported as ``PeripheralManagerEvent/requestRefused(_:)``, so a
    /// central never waits out its ATT timeout for a request nobody will see.
    public nonisolated let requests: AsyncStream<ATTRequest>
    let requestContinuation: AsyncStream<ATTRequest>.Continuation
    let eventBroadcast = Broadcast<PeripheralManagerEvent>()

    var timer = DeadlineTimer<Task<Void, Never>>()
    /// Storage reused by ``makeOutput()`` and ``updateValue(_:for:onSubscribedCentrals:)``.
    var spareOutput: GATTServerOutput?
    var spareSubscribers: [GATTSubscriber] = []
    /// Requests answered with Insufficient Resources because ``requests`` was full.
    public internal(set) var refusedRequests = 0

    /// Opens a peripheral manager on `transport`. The database starts with the GAP
    /// service (Device Name `name`, Appearance) and the GATT service (Service Changed,
    /// Client Supported Features, Database Hash, Server Supported Features).
    ///
    /// - Parameter snoop: a btsnoop capture of the session, as for
    ///   ``CentralManager/init(transport:store:snoop:)``. (A ``MemoryRadio`` records all
    ///   its links from the central's side, whichever manager opened the capture.)
    /// - Parameter store: where centrals' bonds and our identity are kept; a
    ///   ``FileStore`` lets a central that bonded with us encrypt again after a restart.
    /// - Parameter pairing: how a central pairs with us on the userland host (Just Works
    ///   by default). Characteristics whose permissions require `encrypted`,
    ///   `authenticated` or `secure` answer Insufficient Encryption or Authentication
    ///   until the link is that secure.
    public init(transport: BluetoothTransport = .default, name: String = "Attune", appearance: UInt16 = 0,
                snoop: SnoopFile? = nil, store: any Store = InMemoryStore(),
                pairing: PairingConfiguration = PairingConfiguration()) throws(AttuneError) {
        self.transport = transport
        self.store = store
        self.pairing = pairing
        backend = transport.makeBackend(snoop: snoop, bonds: StoreBondKeeper(store: store), pairing: pairing)
        (requests, requestContinuation) = AsyncStream.makeStream(of: ATTRequest.self, bufferingPolicy: .bufferingOldest(Self.requestQueueCapacity))
        let gap = ServiceDefinition(BluetoothUUID(0x1800), characteristics: [
            CharacteristicDefinition(BluetoothUUID(0x2A00), properties: [.read], value: Array(name.utf8)),
            CharacteristicDefinition(BluetoothUUID(0x2A01), properties: [.read],
                                     value: [UInt8(truncatingIfNeeded: appearance), UInt8(truncatingIfNeeded: appearance >> 8)]),
        ])
        do {
            server = GATTServer(database: try AttributeDatabase(services: [gap, .genericAttribute()]))
        } catch {
            throw .operationNotSupported("the base database does not build: \(error)")
        }
    }

    /// Whether the controller is usable.
    public nonisolated var state: ManagerState { backend.status.state }
    /// The state with its cause, whose description names the fix.
    public nonisolated var status: ManagerStatus { backend.status }
    /// The current state, then every change, like `peripheralManagerDidUpdateState`.
    public nonisolated var stateUpdates: AsyncStream<ManagerState> { backend.stateUpdates() }

    /// Connections, subscriptions, stored writes, indications, expired requests.
    public nonisolated var events: AsyncStream<PeripheralManagerEvent> { eventBroadcast.stream() }

    /// The centrals connected now.
    public var connectedCentrals: [Central] {
        connected.values.map(\.central).sorted { $0.connection.rawValue < $1.connection.rawValue }
    }

    /// The services we publish (GAP and GATT included), with their handles.
    public var services: [PublishedService] { Self.published(server.database) }

    static func published(_ db: AttributeDatabase) -> [PublishedService] {
        db.services.map { s in
            PublishedService(
                uuid: s.uuid, isPrimary: s.isPrimary, startHandle: s.range.start, endHandle: s.range.end,
                characteristics: db.characteristics.filter { s.range.contains($0.valueHandle) }.map {
                    PublishedCharacteristic(uuid: $0.uuid, properties: $0.properties, valueHandle: $0.valueHandle,
                                            clientConfigurationHandle: $0.clientConfigurationHandle)
                })
        }
    }

    var now: MonotonicTime { clock.now }

    /// Limits how many centrals may be connected at once (`attune serve --max-centrals`):
    /// while that many are, connectable advertising pauses, and it resumes when one
    /// leaves. nil lets as many connect as the controller accepts.
    public func setMaximumCentrals(_ limit: Int?) {
        maximumCentrals = limit.map { max(1, $0) }
        updateAdvertising()
    }

    /// Keeps connectable advertising on while another central may connect, and off when
    /// the manager is full: called after every connection and disconnection.
    ///
    /// - Parameter again: enable even if advertising is believed on (after a
    ///   disconnection): a controller may have refused the enable that followed the
    ///   last connection, and enabling what is on does nothing (Vol 4 Part E §7.8.9).
    func updateAdvertising(again: Bool = false) {
        guard let advertising, advertising.isConnectable else { return }
        let room = connected.count < (maximumCentrals ?? Int.max)
        guard room != advertisingEnabled || (again && room) else { return }
        advertisingEnabled = room
        backend.setAdvertisingEnabled(room)
    }
}
