/// The life of one connection to a peripheral, as a sans-I/O state machine.
///
/// Application requests (``connect(at:into:)``, ``cancel(at:into:)``), link facts
/// (``linkUp(at:into:)``, ``linkFailed(_:at:into:)``, ``linkDown(_:at:into:)``), the GATT engine's progress
/// (``gattPhase(_:into:)``, ``gattReady(at:into:)``) and the passing of time
/// (``tick(at:into:)``) go in; ``LifecycleAction``s come out, appended to a caller-owned
/// list as every engine's output is. The machine makes only link and reconnect decisions:
/// the MTU, the database, its cache check and the subscriptions belong to the link's
/// GATT engine (``GATTClient``), which the owner starts on ``LifecycleAction/startGATT``. No clock, thread or socket lives
/// here, so tests drive every timeout and drop by hand. Jitter comes from an injected
/// random number generator, so backoff is deterministic under test.
///
/// Each state is a struct of its own (`DisconnectedState`, `ConnectingState`,
/// `ConnectedState`, `DisconnectingState`, `ReconnectPendingState`); transitions
/// replace the state and return what to do.
public struct ConnectionLifecycle: Sendable {
    enum State: Hashable, Sendable {
        case disconnected(DisconnectedState)
        case connecting(ConnectingState)
        case connected(ConnectedState)
        case disconnecting(DisconnectingState)
        case reconnectPending(ReconnectPendingState)
    }

    /// Changes apply from the next attempt on.
    public var configuration: LifecycleConfiguration
    var state: State = .disconnected(DisconnectedState())
    /// Attempts since the connection was last ready; drives the backoff.
    public internal(set) var failedAttempts = 0
    /// True once a connection reached the link since the application last asked to
    /// connect: only such connections are re-established automatically.
    var wasEstablished = false
    private var random: any RandomNumberGenerator & Sendable

    /// A machine in the disconnected state.
    public init(configuration: LifecycleConfiguration = LifecycleConfiguration(),
                random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.configuration = configuration
        self.random = random
    }

    /// The fine-grained phase.
    public var phase: LifecyclePhase {
        switch state {
        case .disconnected, .reconnectPending: .disconnected
        case .connecting: .connecting
        case .connected(let s): s.phase
        case .disconnecting: .disconnecting
        }
    }

    /// The Core Bluetooth-style state.
    public var connectionState: ConnectionState { phase.connectionState }

    /// When the next automatic attempt starts, while one is pending.
    public var reconnectAt: MonotonicTime? {
        if case .reconnectPending(let s) = state { return s.at }
        return nil
    }

    /// The earliest time ``tick(at:)`` has work to do.
    public var nextDeadline: MonotonicTime? {
        switch state {
        case .disconnected, .connected: nil
        case .connecting(let s): s.deadline
        case .disconnecting(let s): s.deadline
        case .reconnectPending(let s): s.at
        }
    }

    // MARK: Application requests

    /// The application asks to connect. A pending reconnect starts at once; an attempt
    /// already under way is joined.
    public mutating func connect(at now: MonotonicTime, into actions: inout [LifecycleAction]) {
        switch state {
        case .disconnected:
            wasEstablished = false
            failedAttempts = 0
            startAttempt(at: now, applicationWaiting: true, into: &actions)
        case .reconnectPending:
            startAttempt(at: now, applicationWaiting: true, into: &actions)
        case .connecting(var s):
            s.applicationWaiting = true
            state = .connecting(s)
        case .connected(var s):
            if s.phase == .ready {
                actions.append(.deliver(.phase(.ready)))
                return
            }
            s.applicationWaiting = true
            state = .connected(s)
        case .disconnecting(var s):
            s.connectAfterwards = true
            state = .disconnecting(s)
        }
    }

    /// The application gives the connection up, like `cancelPeripheralConnection`: no
    /// reconnect follows, and every subscription ends with ``AttuneError/cancelled``.
    ///
    /// An attempt still under way is abandoned, and its end is waited for as a link's is:
    /// the controller's connection can cross the cancel, so until the attempt reports that
    /// it failed (or its link, closed at once, is down) the peer may still be held.
    /// Saying `disconnected` before that would let a caller connect it elsewhere while
    /// this radio still holds it.
    public mutating func cancel(at now: MonotonicTime, into actions: inout [LifecycleAction]) {
        switch state {
        case .disconnected:
            return
        case .connecting(let s):
            let deadline = now + configuration.disconnectTimeout
            state = .disconnecting(DisconnectingState(deadline: deadline, connectAfterwards: false,
                                                      applicationWaiting: s.applicationWaiting))
            wasEstablished = false
            actions += [.closeLink, .deliver(.phase(.disconnecting)), .schedule(deadline)]
        case .connected(let s):
            let deadline = now + configuration.disconnectTimeout
            state = .disconnecting(DisconnectingState(deadline: deadline, connectAfterwards: false,
                                                      applicationWaiting: s.applicationWaiting))
            wasEstablished = false
            actions += [.failPendingOperations(.cancelled), .closeLink, .deliver(.phase(.disconnecting)),
                        .schedule(deadline)]
        case .disconnecting(var s):
            s.connectAfterwards = false
            state = .disconnecting(s)
        case .reconnectPending:
            becomeDisconnected(reason: .cancelled, endingWith: .cancelled, into: &actions)
        }
    }

    // MARK: Shared transitions

    mutating func startAttempt(at now: MonotonicTime, applicationWaiting: Bool, into actions: inout [LifecycleAction]) {
        let deadline = now + configuration.connectTimeout
        state = .connecting(ConnectingState(deadline: deadline, applicationWaiting: applicationWaiting))
        actions += [.deliver(.phase(.connecting)), .openLink, .schedule(deadline)]
    }

    /// Ends in `disconnected` for good: every subscription ends with `error`.
    mutating func becomeDisconnected(reason: DisconnectReason, endingWith error: AttuneError,
                                     into actions: inout [LifecycleAction]) {
        state = .disconnected(DisconnectedState())
        wasEstablished = false
        actions += [.deliver(.phase(.disconnected)), .deliver(.disconnected(reason, reconnectAt: nil)),
                    .endSubscriptions(error)]
    }

    /// After a failed attempt or a drop: wait and retry if the policy says so, else stop.
    mutating func afterLoss(reason: DisconnectReason, error: AttuneError, at now: MonotonicTime,
                            into actions: inout [LifecycleAction]) {
        guard case .automatic(let backoff) = configuration.reconnect,
              wasEstablished || configuration.retriesFirstConnection else {
            becomeDisconnected(reason: reason, endingWith: error, into: &actions)
            return
        }
        // The top 53 bits as a fraction in 0..<1, spelled out so a fixed generator gives a
        // known jitter in tests.
        let r = Double(random.next() >> 11) * 0x1p-53
        let at = now + backoff.delay(attempt: failedAttempts, random: r)
        failedAttempts += 1
        state = .reconnectPending(ReconnectPendingState(at: at, attempt: failedAttempts))
        actions += [.deliver(.phase(.disconnected)), .deliver(.disconnected(reason, reconnectAt: at)), .schedule(at)]
    }
}
