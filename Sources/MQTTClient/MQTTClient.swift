import CMosquitto
import EventLoop
import Glibc
import Synchronization

/// The gateway's MQTT 5 client: libmosquitto driven from ``KernelEventLoop`` (never its own
/// `mosquitto_loop_start` thread), so the MQTT keepalive runs on the loop's thread whatever
/// Bluetooth work holds the cooperative pool.
///
/// - The broker link reconnects by itself, 0.25 s doubling to 30 s, and re-sends every
///   subscription after each reconnect; ``events`` tells the changes.
/// - ``publish(_:)`` never blocks and never fails for a broker that is away: messages wait
///   in a bounded outbound queue (``MQTTConfiguration/outboundCapacity``). When it is full
///   the oldest waiting message is dropped and counted in
///   ``MQTTClientStatistics/droppedMessages``. A QoS 1 message counts against the bound until
///   its PUBACK; libmosquitto re-sends it after a reconnect. So every message is delivered
///   or counted.
/// - Delivered messages come out of ``messages``, bounded; what a slow consumer misses is
///   reported in the stream itself.
///
/// Call ``start()`` once, and ``close()`` (or ``closeWithoutDisconnect()``) when done.
public final class MQTTClient: Sendable {
    public let configuration: MQTTConfiguration
    /// Messages delivered to this client's subscriptions. One consumer.
    public let messages: MQTTStream<MQTTMessage>
    /// Connection changes and subscription acknowledgements. One consumer.
    public let events: MQTTStream<MQTTConnectionEvent>

    let loop: KernelEventLoop
    let handle: MosquittoHandle
    /// Messages handed to libmosquitto at once: the rest wait in our ring, where the
    /// oldest can still be dropped (libmosquitto's queue cannot give one back).
    let window: Int
    let state: Mutex<State>

    /// A queued message and its place in the order of publishing.
    struct Queued {
        var message: MQTTOutboundMessage
        var sequence: UInt64
    }

    enum Phase: Equatable {
        case idle, connecting, connected, waiting
        /// ``close()`` was asked for while connected with messages not yet delivered: they
        /// go out first (up to ``MQTTConfiguration/closeDrainLimit``), then DISCONNECT.
        case draining
        case closed

        /// Whether new messages and subscriptions are refused: the client is closing or closed.
        var isClosing: Bool { self == .draining || self == .closed }
    }

    struct State {
        var phase = Phase.idle
        var queue = OutboundRing<Queued>()
        /// Handed to libmosquitto, by message id: QoS 1 until PUBACK, QoS 0 until written.
        var inFlight: [Int32: Queued] = [:]
        var nextSequence: UInt64 = 0
        var statistics = MQTTClientStatistics(queued: 0, inFlight: 0, droppedMessages: 0, acknowledged: 0,
                                              rejected: 0, written: 0, connections: 0, droppedInbound: 0)
        var subscriptions: [String: MQTTQoS] = [:]
        var subscribeRequests: [Int32: String] = [:]
        var watch: KernelEventLoop.Watch?
        var attempt: UInt64 = 0
        /// Reconnect attempts since the broker last accepted one: drives ``reconnectBackoff``.
        var failedAttempts = 0
        var pumpScheduled = false
        /// Whether `mosquitto_connect_async` has stored host and port (later attempts reconnect).
        var initialised = false
        /// The broker's CONNACK refusal, told with the disconnection that follows it.
        var refusal: String?
        var reconnectTimer: KernelEventLoop.Timer?
        var connectTimer: KernelEventLoop.Timer?
        var miscTimer: KernelEventLoop.Timer?
        /// Ends a drain that takes too long; what is left then is counted as dropped.
        var drainTimer: KernelEventLoop.Timer?
        /// ``close()`` callers waiting for the drain and DISCONNECT.
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Messages handed to libmosquitto at once (a quarter of the outbound bound, at most
    /// 512): also its Send Maximum, so all of them may be on the wire unacknowledged, as
    /// far as the broker's Receive Maximum allows. The window, not the broker, sets the
    /// rate: at 10,000 values a second through a loaded machine the PUBACK round trip is
    /// over 10 ms, so a window of 128 held hundreds queued behind it, which was most of
    /// `gateway.scale.memory`'s p99 (76 ms; 39 ms with 512, at the same CPU). 1024 gained
    /// nothing more; libmosquitto walks its list of outgoing messages on each PUBACK.
    static func window(_ configuration: MQTTConfiguration) -> Int {
        max(1, min(configuration.outboundCapacity / 4, 512))
    }

    /// How often libmosquitto's keepalive (`mosquitto_loop_misc`) is checked; its clock
    /// counts whole seconds, and the broker allows 1.5 × keepalive, so half a second is ample.
    static let miscInterval: Duration = .milliseconds(500)

    /// Creates a client; nothing is sent until ``start()``.
    public init(configuration: MQTTConfiguration, loop: KernelEventLoop? = nil) throws(MQTTError) {
        guard MosquittoLibrary.ready else {
            throw .library(operation: "mosquitto_lib_init", code: -1, message: "libmosquitto failed to initialise")
        }
        guard !configuration.clientID.isEmpty, configuration.clientID.utf8.count <= 65_535 else {
            throw .invalidTopic("client id must be 1 to 65535 bytes")
        }
        guard configuration.keepalive == 0 || (5...65_535).contains(configuration.keepalive) else {
            throw .library(operation: "keepalive", code: Int32(MOSQ_ERR_INVAL.rawValue),
                           message: "keepalive must be 0 or 5 to 65535 seconds, not \(configuration.keepalive)")
        }
        guard (1...65_535).contains(configuration.receiveMaximum) else {
            throw .library(operation: "receive maximum", code: Int32(MOSQ_ERR_INVAL.rawValue),
                           message: "receive maximum must be 1 to 65535, not \(configuration.receiveMaximum)")
        }
        guard (1...65_535).contains(configuration.port) else {
            throw .invalidURL(configuration.host, reason: "port \(configuration.port) out of range")
        }
        let eventLoop: KernelEventLoop
        if let loop {
            eventLoop = loop
        } else {
            do { eventLoop = try KernelEventLoop.shared() } catch {
                throw .library(operation: "event loop", code: -1, message: "\(error)")
            }
        }
        self.configuration = configuration
        self.loop = eventLoop
        self.handle = try Self.makeHandle(configuration)
        self.window = Self.window(configuration)
        self.messages = MQTTStream(capacity: configuration.inboundCapacity)
        self.events = MQTTStream(capacity: 256)
        self.state = Mutex(State())
        mosquitto_user_data_set(handle.pointer, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        let leftovers = state.withLock { state in
            (state.watch, [state.reconnectTimer, state.connectTimer, state.miscTimer, state.drainTimer])
        }
        if let watch = leftovers.0 { loop.unwatch(watch) }
        for timer in leftovers.1.compactMap({ $0 }) { loop.cancel(timer) }
        mosquitto_destroy(handle.pointer)
    }

    /// Starts connecting; from then on the client keeps itself connected until closed.
    public func start() {
        let first = state.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .waiting
            return true
        }
        guard first else { return }
        loop.execute { [weak self] in
            self?.attemptConnect()
            self?.scheduleMisc()
        }
    }

    /// Delivers what was published before it, then sends DISCONNECT (so the broker
    /// discards the will), stops reconnecting and ends both streams.
    ///
    /// While connected, every queued message is handed over and written, and each QoS 1
    /// one acknowledged, before DISCONNECT goes out: a daemon's last words (a lease given
    /// up, `offline`) are what it publishes just before it closes. The drain is bounded by
    /// ``MQTTConfiguration/closeDrainLimit``, and by the connection: what cannot be
    /// delivered then (or at all, with the broker away) is counted in
    /// ``MQTTClientStatistics/droppedMessages`` and named in the last
    /// ``MQTTConnectionEvent/disconnected(reason:)``. Publishing after `close()` began throws.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute { self.beginClose(continuation) }
        }
    }

    /// Closes the connection without DISCONNECT, as a crashed process would: the broker
    /// publishes the will. For tests and for a daemon that must not say goodbye.
    public func closeWithoutDisconnect() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute {
                self.shutDown(graceful: false)
                continuation.resume()
            }
        }
    }

    /// A consistent snapshot of the outbound counters.
    public var statistics: MQTTClientStatistics {
        let inboundDropped = messages.buffer.dropped
        return state.withLock { state in
            var statistics = state.statistics
            statistics.queued = state.queue.count
            statistics.inFlight = state.inFlight.count
            statistics.droppedInbound = inboundDropped
            return statistics
        }
    }

    /// Whether the broker has accepted the current connection.
    public var isConnected: Bool { state.withLock { $0.phase == .connected } }

    // MARK: - Subscriptions

    /// Subscribes now if connected, and again after every reconnect: subscriptions are
    /// desired state, not a one-off request.
    public func subscribe(_ filter: String, qos: MQTTQoS = .atLeastOnce) throws(MQTTError) {
        guard Self.validFilter(filter) else { throw .invalidTopic(filter) }
        let connected = try state.withLock { state throws(MQTTError) -> Bool in
            guard !state.phase.isClosing else { throw .closed }
            state.subscriptions[filter] = qos
            return state.phase == .connected
        }
        if connected {
            loop.execute { [weak self] in
                guard let self else { return }
                self.sendSubscribe(filter, qos: qos)
                self.afterIO()
            }
        }
    }

    /// Drops a subscription, from the broker now and from the ones re-sent on reconnect.
    public func unsubscribe(_ filter: String) throws(MQTTError) {
        guard Self.validFilter(filter) else { throw .invalidTopic(filter) }
        let connected = try state.withLock { state throws(MQTTError) -> Bool in
            guard !state.phase.isClosing else { throw .closed }
            state.subscriptions.removeValue(forKey: filter)
            return state.phase == .connected
        }
        if connected {
            loop.execute { [weak self] in
                guard let self else { return }
                _ = filter.withCString { mosquitto_unsubscribe_v5(self.handle.pointer, nil, $0, nil) }
                self.afterIO()
            }
        }
    }

    static func validFilter(_ filter: String) -> Bool {
        let length = filter.utf8.count
        guard length > 0, length <= 65_535 else { return false }
        return filter.withCString { mosquitto_sub_topic_check2($0, length) }.isMosquittoSuccess
    }

    static func validTopicName(_ topic: String) -> Bool {
        let length = topic.utf8.count
        guard length > 0, length <= 65_535 else { return false }
        return topic.withCString { mosquitto_pub_topic_check2($0, length) }.isMosquittoSuccess
    }

    /// Sends one SUBSCRIBE; on the loop thread.
    func sendSubscribe(_ filter: String, qos: MQTTQoS) {
        var mid: Int32 = 0
        let rc = filter.withCString { mosquitto_subscribe_v5(handle.pointer, &mid, $0, qos.rawValue, 0, nil) }
        if rc.isMosquittoSuccess {
            state.withLock { $0.subscribeRequests[mid] = filter }
        }
    }
}
