import Foundation
import Synchronization
import Transport

/// A remote peripheral, like `CBPeripheral`: its connection, its GATT tree and the
/// operations on it, all async.
///
/// Get one from ``CentralManager`` (``CentralManager/peripheral(for:)``,
/// ``CentralManager/retrievePeripherals(identifiers:)``) and connect it with
/// ``CentralManager/connect(_:timeout:reconnect:)``. The connection's life runs in a
/// ``ConnectionLifecycle``; GATT runs in the client engine. This actor only moves
/// bytes, time and results between them.
public actor Peripheral {
    /// Stable across processes: derived from the address and its type.
    public nonisolated let identifier: UUID
    /// The device address the link is made to.
    public nonisolated let address: BluetoothAddress
    /// Public or random, as advertised.
    public nonisolated let addressType: BluetoothAddressType
    /// The name it advertised, when known.
    public internal(set) var name: String?

    let backend: any ControllerBackend
    let store: any Store
    let clock: MonotonicClock
    var lifecycle: ConnectionLifecycle
    let lifecycleBroadcast = Broadcast<LifecycleEvent>()

    // The current link and its GATT client.
    var link: (any ATTLink)?
    var connection: GATTLink?
    var connectTask: Task<Void, Never>?
    var readerTask: Task<Void, Never>?
    /// Bumped whenever a link or attempt is abandoned, so late callbacks are ignored.
    var generation = 0

    /// The application's outstanding client commands.
    var waiters: [GATTRequestID: CheckedContinuation<GATTClientResponse, any Error>] = [:]
    /// The cache and subscriptions between links (the link's engine holds the
    /// subscriptions while it is up).
    var memory: LinkMemory
    var connectWaiters: [CheckedContinuation<Void, any Error>] = []

    /// The tree as the application has discovered it so far.
    var revealed: [Service]?

    /// The consumers of ``notifications(for:)``, per value handle.
    var listeners: [AttributeHandle: [Int: DeliveryBuffer<Notification>]] = [:]
    var nextListener = 0
    /// Listeners that filled up while the last batch was handled: the link is read no
    /// further until they have room (or their stall limit passes).
    var fullListeners: [DeliveryBuffer<Notification>] = []
    /// Values handed to listeners while the current batch is handled.
    var batchNotifications = 0
    /// When the current batch was taken from the link.
    var batchReceivedAt = ContinuousClock.now
    /// Why the last security raise failed, reported with the request it was for.
    var securityFailure: AttuneError?
    /// Why the client engine closed this link's ATT bearer (a transaction timeout, a
    /// protocol violation), with the bearer's own reason: what pending operations and a
    /// waiting connect fail with, instead of the bare disconnection our close causes.
    var bearerFailure: (error: AttuneError, reason: DisconnectReason)?
    /// The ATT transaction timeout of the next link: 30 s per the spec (Vol 3 Part F
    /// §3.3.3); tests shorten it.
    var transactionTimeout: Duration = .seconds(30)

    /// Sets the ATT transaction timeout of the links that follow (tests only: the spec
    /// fixes it at 30 s).
    func setTransactionTimeout(_ timeout: Duration) { transactionTimeout = timeout }
    /// Storage the client engine's actions for each received PDU are appended to.
    var spareActions: [GATTClientAction] = []
    /// PDUs the client engine queued behind a security raise.
    var heldForSecurity: [[UInt8]]?

    /// The address it advertises now, when that differs from ``address``: a bonded peer's
    /// latest resolvable private address, which links are made to.
    nonisolated let airAddress = Mutex<(BluetoothAddress, BluetoothAddressType)?>(nil)

    /// Counters of this peripheral's links since it was created.
    public nonisolated var statistics: PeripheralStatistics { counters.snapshot }
    nonisolated let counters = PeripheralCounters()

    /// How many values one ``notifications(for:)`` consumer may have waiting before the
    /// link stops being read.
    public static let notificationBufferCapacity = 256
    /// How long a full consumer may hold the link up before its values are dropped (and
    /// counted) instead; well inside the 30 s ATT transaction timeout, so a quiet
    /// consumer never makes the peer's responses time out.
    public var notificationStallLimit: Duration = .seconds(1)

    /// Sets ``notificationStallLimit``.
    public func setNotificationStallLimit(_ limit: Duration) { notificationStallLimit = limit }

    var timer = DeadlineTimer<Task<Void, Never>>()
    /// Notifications the transport dropped at the link's inbox, by handle, not yet told:
    /// the next notification of each characteristic carries its count in `lostBefore`.
    var droppedNotifications = DroppedNotifications()
    /// Callers of ``disconnectAndWait()``, resumed when the link reports itself closed.
    var linkClosedWaiters: [CheckedContinuation<Void, Never>] = []

    init(address: BluetoothAddress, type: BluetoothAddressType, name: String?, record: PeripheralRecord?,
         backend: any ControllerBackend, store: any Store, clock: MonotonicClock) {
        self.address = address
        addressType = type
        identifier = PeripheralIdentifier.make(address: address, type: type)
        self.name = name ?? record?.name
        self.backend = backend
        self.store = store
        self.clock = clock
        lifecycle = ConnectionLifecycle()
        memory = LinkMemory(cache: record?.cache, subscriptions: record?.subscriptions ?? [])
        isRestored = record?.autoConnect == true && record?.cache != nil
    }

    /// disconnected, connecting, connected or disconnecting.
    public var state: ConnectionState { lifecycle.connectionState }

    /// The finer phase, with the GATT steps after the link came up.
    public var phase: LifecyclePhase { lifecycle.phase }

    /// Every lifecycle event from now on: phases, disconnects with their reasons
    /// (including while a reconnect is pending), cache validation and subscriptions
    /// restored or ended.
    public nonisolated var lifecycleEvents: AsyncStream<LifecycleEvent> { lifecycleBroadcast.stream() }

    /// The services discovered so far (nil before ``discoverServices(_:)``), like
    /// `CBPeripheral.services`, with the services ``discoverIncludedServices(_:for:)``
    /// reached, secondary ones included, in handle order. A peripheral restored from the store (one that was
    /// connected with automatic reconnect) exposes its cached tree at once, so a
    /// restarted process can listen to its characteristics without rediscovering.
    public var services: [Service]? { revealed ?? (isRestored ? knownTree : nil) }

    /// Whether this peripheral came back from the store marked for restoration.
    let isRestored: Bool

    /// The ATT_MTU of the connection.
    public var mtu: Int { connection?.mtu ?? ATTBearer.defaultMTU }

    /// The longest value one write of `type` can carry: ATT_MTU − 3 without response,
    /// 512 (the attribute maximum) with response, which may take a long write.
    public func maximumWriteValueLength(for type: CharacteristicWriteType) -> Int {
        type == .withoutResponse ? mtu - 3 : 512
    }

    /// Everything subscribed, as restored on reconnect.
    public var subscriptions: [Subscription] { connection?.client.subscriptions ?? memory.subscriptions }

    /// Whether the characteristic's notifications or indications are on.
    public func isNotifying(_ characteristic: Characteristic) -> Bool {
        subscriptions.contains { $0.valueHandle == characteristic.valueHandle }
    }

    var now: MonotonicTime { clock.now }
}
