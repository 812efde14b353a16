import Foundation
import HCI
import Synchronization

/// Runs the sans-I/O ``HCIHost`` over an ``H4Stream``: the thin I/O edge of the userland
/// host, on the process's shared ``KernelEventLoop``. Requests may come from any task.
///
/// The stream's descriptor is non-blocking and registered with the loop. Reading is
/// driven by readability (a task that runs on the loop thread), the host's deadlines are
/// loop timers, and packets are written
/// by whoever produced them, under the host's lock and in order; what the descriptor
/// does not take at once waits in a bounded queue until it is writable. No thread is
/// started per host, and nothing polls.
///
/// When the stream closes, fails or stops being framable, every connection ends with
/// ``HostEvent/connectionEnded(handle:error:)``, every request fails with the same
/// ``HostError/transportClosed(_:)``, and ``events`` finishes.
public final class UserlandHost: Sendable {
    /// Events from the host, in order. Finishes when the host stops.
    ///
    /// Bounded: lifecycle events (ready, connected, disconnected, connection ended) are
    /// always kept, but at most ``eventBufferCapacity`` of the others (advertising
    /// reports, warnings, …) wait for a consumer; past that they are dropped and counted
    /// in ``droppedEventCount``.
    public let events: AsyncStream<HostEvent>
    public let endpoint: H4Endpoint

    /// How many non-lifecycle events may wait in ``events`` before new ones are dropped.
    public static let eventBufferCapacity = 1024

    /// How many packets may wait for the stream to become writable before the host
    /// gives up on the controller. Flow control keeps the real figure near the
    /// controller's command and ACL buffer counts.
    public static let writeQueueCapacity = 4096

    /// How long ``close()`` (or a failure) lets queued packets, such as a Disconnect,
    /// reach a controller that is slow to read before the stream closes anyway.
    public static let closeFlushTimeout = Duration.seconds(1)

    private struct State: ~Copyable {
        var host: HCIHost
        var decoder = H4StreamDecoder()
        var readBuffer = [UInt8](repeating: 0, count: H4Stream.readBufferSize)
        var output = H4WriteQueue(capacity: UserlandHost.writeQueueCapacity)
        /// A task waits for writability to drain ``output``.
        var flushing = false
        /// Packets the stream never took: queued when the host stopped and dropped at
        /// close, or refused because ``output`` was full.
        var unsentPackets = 0
        /// Why a write failed, to stop the host with once the current actions are done.
        var writeFailure: String?
        var nextID: UInt64 = 1
        var waiters: [HostRequestID: CheckedContinuation<Result<HostCompletion, HostError>, Never>] = [:]
        var readyWaiter: CheckedContinuation<Result<ControllerInfo, HostError>, Never>?
        var started = false
        var stopped: HostError?
        /// The stream is closed and off the loop; nothing may touch the descriptor.
        var released = false
        /// The loop timer for the host's next deadline, and which deadline it serves.
        var deadlineTimer: KernelEventLoop.Timer?
        var timerDeadline: ContinuousClock.Instant?
        var timerGeneration: UInt64 = 0
        /// Bounds the final flush after the host stopped.
        var closeTimer: KernelEventLoop.Timer?
        /// Per-connection ATT channels, when ATT is routed to them.
        var channels: [UInt16: UserlandATTChannel] = [:]
        /// A channel whose inbox is full: nothing more is read until it has room.
        var fullChannel: UserlandATTChannel?
        var sendWaiters: [UInt16: [CheckedContinuation<Void, Never>]] = [:]
    }

    /// What the reader does next.
    private enum ReadStep {
        case readAgain
        case waitReadable
        case waitForRoom(UserlandATTChannel)
        case stop
    }

    private let stream: H4Stream
    private let loop: KernelEventLoop
    private let registration: KernelEventLoop.Registration
    private let recorder: (any H4PacketRecorder)?
    private let eventBuffer = HostEventBuffer(capacity: UserlandHost.eventBufferCapacity)
    private let state: Mutex<State>
    /// True when ATT PDUs go to ``UserlandATTChannel``s instead of ``events``.
    public let routesATTToChannels: Bool

    /// Opens the endpoint and registers it with the shared event loop. Nothing is sent
    /// until ``start()``.
    /// - Parameter routesATTToChannels: deliver ATT PDUs through a ``UserlandATTChannel``
    ///   per connection (for GATT engines) instead of as ``HostEvent/attributeData(handle:pdu:)``.
    public init(endpoint: H4Endpoint, configuration: HostConfiguration = HostConfiguration(),
                recorder: (any H4PacketRecorder)? = nil, routesATTToChannels: Bool = false) throws(H4Stream.Failure) {
        self.endpoint = endpoint
        self.routesATTToChannels = routesATTToChannels
        let stream = try H4Stream.open(endpoint)
        do {
            try stream.setNonBlocking()
            loop = try KernelEventLoop.shared()
            registration = try loop.register(stream.descriptor)
        } catch {
            stream.close()
            if let failure = error as? H4Stream.Failure { throw failure }
            let code = (error as? KernelTransportError)?.errno ?? 0
            throw H4Stream.Failure(operation: "register \(endpoint) with the event loop: \(error)", errno: code)
        }
        self.stream = stream
        self.recorder = recorder
        let buffer = eventBuffer
        events = AsyncStream(unfolding: { await buffer.next() })
        state = Mutex(State(host: HCIHost(configuration: configuration)))
    }

    deinit {
        close()
    }

    /// Runs the initialisation sequence and returns what it learnt about the controller.
    public func start() async throws(HostError) -> ControllerInfo {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ControllerInfo, HostError>, Never>) in
            let startReader = state.withLock { state -> Bool in
                if let error = state.stopped {
                    continuation.resume(returning: .failure(error))
                    return false
                }
                guard !state.started else {
                    continuation.resume(returning: .failure(.busy("start() was already called")))
                    return false
                }
                state.started = true
                state.readyWaiter = continuation
                execute(state.host.start(at: .now), &state)
                return state.stopped == nil
            }
            if startReader {
                // On the loop thread, so a busy cooperative pool cannot starve reading.
                Task(executorPreference: loop) { [self] in await readLoop() }
            }
        }
        return try result.get()
    }

    /// Carries out a request and waits for its completion.
    public func perform(_ request: HostRequest) async throws(HostError) -> HostCompletion {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HostCompletion, HostError>, Never>) in
            state.withLock { state in
                if let error = state.stopped {
                    continuation.resume(returning: .failure(error))
                    return
                }
                let id = HostRequestID(state.nextID)
                state.nextID += 1
                state.waiters[id] = continuation
                execute(state.host.perform(request, id: id, at: .now), &state)
            }
        }
        return try result.get()
    }

    /// Sends an ATT PDU on the ATT fixed channel of a connection.
    public func sendATT(_ pdu: [UInt8], on handle: UInt16) async throws(HostError) {
        _ = try await perform(.sendL2CAP(handle: handle, channel: .attribute, payload: pdu))
    }

    /// The ATT channel of a live connection, when ATT is routed to channels.
    public func attChannel(for handle: UInt16) -> UserlandATTChannel? {
        state.withLock { $0.channels[handle] }
    }

    /// Starts a request without waiting for it; its completion is dropped. Requests
    /// submitted from one thread reach the controller in order.
    public func submit(_ request: HostRequest) {
        state.withLock { state in
            guard state.stopped == nil else { return }
            let id = HostRequestID(state.nextID)
            state.nextID += 1
            execute(state.host.perform(request, id: id, at: .now), &state)
        }
    }

    /// Queues an L2CAP payload without waiting; dropped if the link is gone.
    func enqueueL2CAP(handle: UInt16, channel: L2CAPChannelID, payload: [UInt8]) {
        state.withLock { state in
            guard state.stopped == nil else { return }
            let id = HostRequestID(state.nextID)
            state.nextID += 1
            execute(state.host.perform(.sendL2CAP(handle: handle, channel: channel, payload: payload), id: id, at: .now), &state)
        }
    }

    /// Asks for a disconnection without waiting for it.
    func requestDisconnect(handle: UInt16) {
        state.withLock { state in
            guard state.stopped == nil, state.host.connection(handle) != nil else { return }
            let id = HostRequestID(state.nextID)
            state.nextID += 1
            execute(state.host.perform(.disconnect(handle: handle, reason: 0x13), id: id, at: .now), &state)
        }
    }

    /// True when nothing of this connection waits for controller buffers.
    public func canSend(on handle: UInt16) -> Bool {
        state.withLock { $0.host.connection(handle) != nil && $0.host.queuedACLPacketCount(on: handle) == 0 }
    }

    /// Returns once ``canSend(on:)`` is true, or the connection is gone: pace bulk sends on it.
    public func sendReady(on handle: UInt16) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                if state.host.connection(handle) == nil || state.host.queuedACLPacketCount(on: handle) == 0 {
                    continuation.resume()
                } else {
                    state.sendWaiters[handle, default: []].append(continuation)
                }
            }
        }
    }

    /// The live connections.
    public var connectionHandles: [UInt16] { state.withLock { $0.host.connectionHandles } }

    /// Why the host stopped, or nil while it runs.
    public var stopReason: HostError? { state.withLock { $0.stopped } }

    /// Events ``events`` dropped because ``eventBufferCapacity`` of them already waited
    /// for a consumer that did not keep up (or because its consumer went away).
    /// Lifecycle events are never dropped.
    public var droppedEventCount: Int { eventBuffer.droppedCount }

    /// The advertising reports among the events dropped for want of room.
    public var droppedAdvertisingReportCount: Int { eventBuffer.droppedAdvertisingReportCount }

    /// Non-lifecycle events waiting in ``events`` now: never more than ``eventBufferCapacity``.
    public var queuedEventCount: Int { eventBuffer.boundedCount }

    /// Packets the stream never took: still queued when the host stopped and the
    /// ``closeFlushTimeout`` passed, or left behind by a failed write.
    public var unsentPacketCount: Int { state.withLock { $0.unsentPackets } }

    /// Stops the host and closes the stream. Safe to call more than once. Packets already
    /// queued (a Disconnect, say) are written first, for at most ``closeFlushTimeout``.
    public func close() {
        state.withLock { state in
            execute(state.host.transportClosed("closed by the application", at: .now), &state)
            // A host that never started has no stopped phase to report through actions.
            if state.stopped == nil { stop(.transportClosed("closed by the application"), &state) }
        }
    }

    // MARK: - Reading

    /// Reads while the stream has bytes, waits on the loop when it has none, and pauses
    /// while a link's inbox is full. Ends when the host stops.
    private func readLoop() async {
        var reads = 0
        while true {
            switch state.withLock({ readStep(&$0) }) {
            case .readAgain:
                // A controller that never stops talking (a busy scan) must not hold the
                // loop thread from the other descriptors and timers on it.
                reads += 1
                if reads % 16 == 0 { await Task.yield() }
            case .waitReadable:
                do { try await loop.waitReadable(registration) } catch { return }
            case .waitForRoom(let channel):
                // Back-pressure: while a link's owner has not taken what it was given,
                // read nothing more; the controller's buffers (and its flow control
                // towards the peer) hold the rest. Loop timers keep firing meanwhile.
                await channel.inbox.waitForRoom()
                state.withLock { if $0.fullChannel === channel { $0.fullChannel = nil } }
            case .stop:
                return
            }
        }
    }

    /// Hands on the packets already read, then reads once more without blocking. Under
    /// the lock, so the descriptor cannot be closed under it.
    private func readStep(_ state: inout State) -> ReadStep {
        guard state.stopped == nil, !state.released else { return .stop }
        if let full = state.fullChannel { return .waitForRoom(full) }
        // Packets of the last read go on only while every inbox has room: the rest wait
        // here as raw bytes (at most one read), so an inbox never holds more than its
        // capacity.
        while state.stopped == nil && state.fullChannel == nil {
            let packet: [UInt8]?
            do throws(H4StreamDecoder.Failure) {
                packet = try state.decoder.nextPacket()
            } catch {
                execute(state.host.transportClosed(error.description, at: .now), &state)
                return .stop
            }
            guard let packet else { break }
            recorder?.record(packet, fromHost: false)
            execute(state.host.receive(packet, at: .now), &state)
        }
        if state.stopped != nil { return .stop }
        if let full = state.fullChannel { return .waitForRoom(full) }
        do throws(H4Stream.Failure) {
            switch try stream.readAvailable(into: &state.readBuffer) {
            case .wouldBlock:
                return .waitReadable
            case .received(let count):
                state.decoder.append(state.readBuffer[0..<count])
                return .readAgain
            case .endOfStream:
                let pending = state.decoder.pendingByteCount
                execute(state.host.transportClosed(pending == 0
                    ? "\(endpoint) closed the stream"
                    : "\(endpoint) closed the stream in the middle of a packet (\(pending) bytes of it received)",
                    at: .now), &state)
                return .stop
            }
        } catch {
            execute(state.host.transportClosed("read from \(endpoint) failed: \(error)", at: .now), &state)
            return .stop
        }
    }

    // MARK: - Writing

    /// Writes a packet now if nothing waits before it, and queues what the stream does not take.
    private func send(_ packet: [UInt8], _ state: inout State) {
        guard !state.released, state.writeFailure == nil else {
            state.unsentPackets += 1
            return
        }
        var written = 0
        if state.output.isEmpty {
            do throws(H4Stream.Failure) {
                written = try stream.writeAvailable(packet[...])
            } catch {
                state.writeFailure = "write to \(endpoint) failed: \(error)"
                state.unsentPackets += 1
                return
            }
            if written == packet.count { return }
        }
        guard state.output.push(packet, alreadyWritten: written) else {
            state.unsentPackets += 1
            state.writeFailure = "\(endpoint) stopped reading: \(state.output.count) packets wait to be written"
            return
        }
        if !state.flushing {
            state.flushing = true
            Task(executorPreference: loop) { [self] in await flushLoop() }
        }
    }

    /// Writes the queue as the stream becomes writable, until it is empty.
    private func flushLoop() async {
        while true {
            let done = state.withLock { state -> Bool in
                guard !state.released else {
                    state.flushing = false
                    return true
                }
                do throws(H4Stream.Failure) {
                    try state.output.drain { (bytes) throws(H4Stream.Failure) in try stream.writeAvailable(bytes) }
                } catch {
                    state.writeFailure = "write to \(endpoint) failed: \(error)"
                    state.unsentPackets += state.output.removeAll()
                }
                guard state.output.isEmpty else { return false }
                state.flushing = false
                // The end of the queue may be what a stopping host waited for.
                execute([], &state)
                return true
            }
            if done { return }
            do { try await loop.waitWritable(registration) } catch { return }
        }
    }

    // MARK: - Time

    /// Points the loop timer at the host's next deadline, replacing the previous one.
    private func schedule(_ deadline: ContinuousClock.Instant, _ state: inout State) {
        guard deadline != state.timerDeadline || state.deadlineTimer == nil else { return }
        if let timer = state.deadlineTimer { loop.cancel(timer) }
        state.timerGeneration += 1
        let generation = state.timerGeneration
        state.timerDeadline = deadline
        state.deadlineTimer = loop.schedule(after: ContinuousClock.now.duration(to: deadline)) { [weak self] in
            self?.deadlineReached(generation)
        }
    }

    private func deadlineReached(_ generation: UInt64) {
        state.withLock { state in
            guard generation == state.timerGeneration, let deadline = state.timerDeadline else { return }
            state.deadlineTimer = nil
            state.timerDeadline = nil
            guard state.stopped == nil else { return }
            let now = ContinuousClock.now
            if now < deadline {
                // The loop's clock rounds to nanoseconds; never tick early.
                schedule(deadline, &state)
                return
            }
            execute(state.host.tick(at: now), &state)
        }
    }

    // MARK: - Stopping

    /// Ends every request and channel with `error` and begins closing the stream.
    private func stop(_ error: HostError, _ state: inout State) {
        state.stopped = error
        state.readyWaiter?.resume(returning: .failure(error))
        state.readyWaiter = nil
        for (_, waiter) in state.waiters { waiter.resume(returning: .failure(error)) }
        state.waiters = [:]
        for handle in Array(state.channels.keys) { endChannel(handle, .ended(error), &state) }
        if let timer = state.deadlineTimer { loop.cancel(timer) }
        state.deadlineTimer = nil
        state.timerDeadline = nil
    }

    /// Once the host stopped: closes the stream when the queue is written, or when
    /// ``closeFlushTimeout`` passed, whichever comes first.
    private func finishIfStopped(_ state: inout State) {
        guard state.stopped != nil, !state.released else { return }
        if state.output.isEmpty || state.writeFailure != nil {
            release(&state)
        } else if state.closeTimer == nil {
            state.closeTimer = loop.schedule(after: Self.closeFlushTimeout) { [weak self] in
                guard let self else { return }
                self.state.withLock { state in release(&state) }
            }
        }
    }

    /// Takes the stream off the loop, closes it, and finishes the capture and the events.
    private func release(_ state: inout State) {
        guard !state.released else { return }
        state.released = true
        state.unsentPackets += state.output.removeAll()
        if let timer = state.closeTimer { loop.cancel(timer) }
        state.closeTimer = nil
        // Deregistering wakes the reader and the flusher, which then see `released`.
        loop.deregister(registration)
        stream.close()
        recorder?.finish()
        eventBuffer.finish()
    }

    /// Carries out the host's actions. Runs under the state lock, so packets leave in the
    /// order the host produced them whichever thread asked.
    private func execute(_ actions: [HostAction], _ state: inout State) {
        for action in actions {
            switch action {
            case .send(let packet):
                recorder?.record(packet, fromHost: true)
                send(packet, &state)
            case .deliver(let event):
                switch event {
                case .ready(let info):
                    state.readyWaiter?.resume(returning: .success(info))
                    state.readyWaiter = nil
                case .connected(let info) where routesATTToChannels:
                    state.channels[info.handle] = UserlandATTChannel(connection: info, host: self)
                case .attributeData(let handle, let pdu) where routesATTToChannels:
                    if let channel = state.channels[handle], !channel.inbox.push(.received(pdu)) {
                        state.fullChannel = channel
                    }
                    continue
                case .disconnected(let handle, let reason):
                    endChannel(handle, .disconnected(reason), &state)
                case .connectionEnded(let handle, let error):
                    endChannel(handle, .ended(error), &state)
                default:
                    break
                }
                eventBuffer.push(event)
            case .complete(let id, let result):
                state.waiters.removeValue(forKey: id)?.resume(returning: result)
            case .schedule(let deadline):
                if state.stopped == nil { schedule(deadline, &state) }
            case .close(let error):
                stop(error, &state)
            }
        }
        // Wake senders whose connection has drained its queue (or is gone).
        for handle in Array(state.sendWaiters.keys)
        where state.host.connection(handle) == nil || state.host.queuedACLPacketCount(on: handle) == 0 {
            for waiter in state.sendWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
        }
        if let failure = state.writeFailure, state.stopped == nil {
            execute(state.host.transportClosed(failure, at: .now), &state)
        }
        finishIfStopped(&state)
    }

    private func endChannel(_ handle: UInt16, _ event: UserlandATTChannel.Event, _ state: inout State) {
        if let channel = state.channels.removeValue(forKey: handle) {
            channel.inbox.finish(event)
            if state.fullChannel === channel { state.fullChannel = nil }
        }
        for waiter in state.sendWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
    }
}
