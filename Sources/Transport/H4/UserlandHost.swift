import EventLoop
#if canImport(Glibc)
import Glibc
#endif
import HCI
import SMP
import Synchronization

/// Runs the sans-I/O ``HCIHost`` over an ``H4Stream``: the thin I/O edge of the userland
/// host. It owns no thread: its descriptor is served by a ``KernelEventLoop`` (the shared
/// one unless another is given), in bounded turns, and its deadlines are timers on that
/// loop. Requests may come from any task.
///
/// One turn hands the host at most ``packetsPerTurn`` packets, from at most one read of
/// ``readLimit`` bytes (``packetReadLimit`` reads of a packet-oriented stream), then returns to the loop,
/// so a controller that floods one host cannot hold up other hosts on the same loop, nor
/// their timers. Writes never wait: what the stream does not take at once waits in order
/// and goes out when the loop sees the stream writable. The host never stops reading for
/// one connection's sake: the stream carries every link and the HCI events they all wait
/// on (Number Of Completed Packets returns the ACL buffers every send needs), so a full
/// ATT inbox drops and counts instead (see ``UserlandATTChannel``).
///
/// When the stream closes, fails or stops being framable, every connection ends with
/// ``HostEvent/connectionEnded(handle:error:)``, every request fails with the same
/// ``HostError/transportClosed(_:)``, and ``events`` finishes.
///
/// The concerns live in their own files: the stream's turns (`+Stream`), the command flow
/// (`+Requests`, with ``HostRequestWaiters``), ACL and the ATT channels (`+ACL`, with
/// ``UserlandChannels``), pairing (`+Pairing`, with ``UserlandSecurity``), and the
/// carrying out of what the host produced (`+Output`).
public final class UserlandHost: Sendable {
    /// Events from the host, in order. Finishes when the host stops. Advertising reports
    /// are bounded (see ``HostEvents``); past a larger bound on the others the host stops.
    public var events: HostEvents { HostEvents(buffer: eventSink) }
    public let endpoint: H4Endpoint

    /// The most bytes one turn reads from a byte stream.
    public static let readLimit = 16 * 1024
    /// The most packets one turn reads from a packet-oriented stream (the user channel).
    public static let packetReadLimit = 32
    /// The most packets one turn hands the host; the rest wait for the next turn, after
    /// every other host on the loop had one.
    public static let packetsPerTurn = 256
    /// The most bytes that may wait to be written. Flow control keeps the host far below
    /// this; a controller that stops reading its input reaches it, and the host stops
    /// instead of growing.
    public static let outboxLimit = 4 * 1024 * 1024
    /// How long a stopped host keeps trying to write what it queued (a Disconnect, say)
    /// before it closes the stream anyway.
    static let drainTimeout = Duration.seconds(1)

    struct State: ~Copyable {
        var host: HCIHost
        /// The host's output, reused for every call.
        var out = HostOutput()
        /// Why the host stopped; nil while it runs.
        var stopped: HostError?
        var requests = HostRequestWaiters()
        var stream = HostStreamState()
        /// The deadline a loop timer is armed for, and that timer.
        var timer = DeadlineTimer<KernelEventLoop.Timer>()
        /// Per-connection ATT channels, when ATT is routed to them.
        var channels = UserlandChannels()
        /// The links' Security Managers, when the configuration enables pairing.
        var security: UserlandSecurity
    }

    let stream: H4Stream
    let loop: KernelEventLoop
    let recorder: (any H4PacketRecorder)?
    let eventSink = HostEvents.Buffer()
    let state: Mutex<State>
    /// One turn's read buffer; only touched under the state lock.
    nonisolated(unsafe) let readBuffer: UnsafeMutableRawBufferPointer
    /// True when ATT PDUs go to ``UserlandATTChannel``s instead of ``events``.
    public let routesATTToChannels: Bool

    /// Opens the endpoint. Nothing is sent until ``start()``.
    /// - Parameters:
    ///   - routesATTToChannels: deliver ATT PDUs through a ``UserlandATTChannel`` per
    ///     connection (for GATT engines) instead of as ``HostEvent/attributeData(handle:pdu:)``.
    ///   - loop: the event loop that serves the stream; the process-wide one by default.
    ///   - security: how links pair, when `configuration.pairingEnabled`: then a Security
    ///     Manager per connection answers SMP and LTK requests, and ``raiseSecurity(on:)``
    ///     pairs. By default LE Secure Connections Just Works (NoInputNoOutput), bonding asked.
    ///   - passkey: typed whenever a pairing asks us for a passkey.
    ///   - agent: asked whenever a pairing needs the user (a passkey to show or type, a
    ///     number to confirm); without it (and `passkey`) such requests are refused.
    public init(endpoint: H4Endpoint, configuration: HostConfiguration = HostConfiguration(),
                recorder: (any H4PacketRecorder)? = nil, routesATTToChannels: Bool = false,
                loop: KernelEventLoop? = nil, security: SMPConfiguration = SMPConfiguration(),
                passkey: UInt32? = nil, agent: PairingAgent? = nil,
                bonds: (any BondKeeper)? = nil) throws(H4Stream.Failure) {
        let chosen: KernelEventLoop
        if let loop {
            chosen = loop
        } else {
            do {
                chosen = try KernelEventLoop.shared()
            } catch {
                throw H4Stream.Failure(operation: "start the event loop (\(error))", errno: error.errno != 0 ? error.errno : EIO)
            }
        }
        self.endpoint = endpoint
        self.routesATTToChannels = routesATTToChannels
        self.stream = try H4Stream.open(endpoint)
        do {
            try stream.setNonBlocking()
        } catch {
            stream.close()
            throw error
        }
        self.loop = chosen
        self.recorder = recorder
        state = Mutex(State(host: HCIHost(configuration: configuration),
                            security: UserlandSecurity(configuration: security,
                                                       prompts: UserlandPairingPrompts(passkey: passkey, agent: agent),
                                                       keeper: bonds)))
        readBuffer = .allocate(byteCount: Self.readLimit, alignment: 16)
        let answerer: @Sendable (UInt16, UInt64, SecurityManagerAnswer) -> Void = { [weak self] handle, id, answer in
            self?.answerPairing(handle: handle, request: id, with: answer)
        }
        state.withLock { $0.security.prompts.answerer = answerer }
    }

    deinit {
        // Nobody holds the host: nothing can wait for a drain either, so close now.
        state.withLock { state in
            state.stream.closingNow = true
            if state.stopped == nil {
                state.host.transportClosed("closed by the application", at: Self.now(), into: &state.out)
                execute(&state)
            }
            finalize(&state)
        }
        readBuffer.deallocate()
    }

    /// Runs the initialisation sequence and returns what it learnt about the controller.
    public func start() async throws(HostError) -> ControllerInfo {
        let result = await withCheckedContinuation { (continuation: HostRequestWaiters.Readiness) in
            state.withLock { state in
                if let error = state.stopped {
                    continuation.resume(returning: .failure(error))
                    return
                }
                guard case .notCalled = state.requests.start else {
                    continuation.resume(returning: .failure(.busy("start() was already called")))
                    return
                }
                state.requests.start = .waiting(continuation)
                do {
                    // The handler holds the host weakly: a host nobody holds closes itself.
                    state.stream.registration = .watched(try loop.watch(stream.descriptor, reading: true, writing: false) { [weak self] readiness in
                        self?.serve(readiness)
                    })
                    state.stream.reading = true
                } catch {
                    state.host.transportClosed("cannot watch \(endpoint) on the event loop: \(error)", at: Self.now(), into: &state.out)
                    execute(&state)
                    return
                }
                state.host.start(at: Self.now(), into: &state.out)
                execute(&state)
            }
        }
        return try result.get()
    }

    /// The live connections.
    public var connectionHandles: [UInt16] { state.withLock { $0.host.connectionHandles } }

    /// Every warning the host raised so far, by kind (delivered or only counted).
    public var warningCounts: HostWarningCounts { state.withLock { $0.host.warningCounts } }

    /// Why the host stopped, or nil while it runs.
    public var stopReason: HostError? { state.withLock { $0.stopped } }

    /// Stops the host and closes the stream. Safe to call more than once.
    public func close() {
        state.withLock { state in
            guard state.stopped == nil else { return }
            state.host.transportClosed("closed by the application", at: Self.now(), into: &state.out)
            execute(&state)
        }
    }

    /// The loop's monotonic clock as the host's time.
    static func now() -> MonotonicTime { MonotonicTime(nanoseconds: KernelEventLoop.now()) }
}
