import Foundation
import HCI
import Synchronization

/// Runs the sans-I/O ``HCIHost`` over an ``H4Stream``: the thin I/O edge of the userland
/// host. One thread reads the stream and drives time; requests may come from any task.
///
/// When the stream closes, fails or stops being framable, every connection ends with
/// ``HostEvent/connectionEnded(handle:error:)``, every request fails with the same
/// ``HostError/transportClosed(_:)``, and ``events`` finishes.
public final class UserlandHost: Sendable {
    /// Events from the host, in order. Finishes when the host stops. Advertising reports
    /// are bounded (see ``HostEvents``); every other event is kept.
    public var events: HostEvents { HostEvents(base: eventStream, budget: reportBudget) }
    public let endpoint: H4Endpoint

    private struct State: ~Copyable {
        var host: HCIHost
        var decoder = H4StreamDecoder()
        var nextID: UInt64 = 1
        var waiters: [HostRequestID: CheckedContinuation<Result<HostCompletion, HostError>, Never>] = [:]
        var readyWaiter: CheckedContinuation<Result<ControllerInfo, HostError>, Never>?
        var started = false
        var stopped: HostError?
        var nextDeadline: MonotonicTime?
        /// The host's output, reused for every call.
        var out = HostOutput()
        /// Per-connection ATT channels, when ATT is routed to them.
        var channels: [UInt16: UserlandATTChannel] = [:]
        /// A channel whose inbox is full: the reader reads nothing more until it has room.
        var fullChannel: UserlandATTChannel?
        var sendWaiters: [UInt16: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let stream: H4Stream
    private let recorder: (any H4PacketRecorder)?
    private let eventStream: AsyncStream<HostEvent>
    private let eventSink: AsyncStream<HostEvent>.Continuation
    private let reportBudget = HostEvents.ReportBudget()
    private let state: Mutex<State>
    private let readerDone = Mutex<Bool>(false)
    private let outbox = H4Outbox()
    /// Signalled when the writer thread has written (or dropped) everything and ended.
    private let writerDone = DispatchSemaphore(value: 0)
    /// True when ATT PDUs go to ``UserlandATTChannel``s instead of ``events``.
    public let routesATTToChannels: Bool

    /// Opens the endpoint. Nothing is sent until ``start()``.
    /// - Parameter routesATTToChannels: deliver ATT PDUs through a ``UserlandATTChannel``
    ///   per connection (for GATT engines) instead of as ``HostEvent/attributeData(handle:pdu:)``.
    public init(endpoint: H4Endpoint, configuration: HostConfiguration = HostConfiguration(),
                recorder: (any H4PacketRecorder)? = nil, routesATTToChannels: Bool = false) throws(H4Stream.Failure) {
        self.endpoint = endpoint
        self.routesATTToChannels = routesATTToChannels
        self.stream = try H4Stream.open(endpoint)
        self.recorder = recorder
        (eventStream, eventSink) = AsyncStream.makeStream(of: HostEvent.self, bufferingPolicy: .unbounded)
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
                state.host.start(at: Self.now(), into: &state.out)
                execute(&state)
                return true
            }
            if startReader {
                Thread.detachNewThread { [self] in readLoop() }
                let (outbox, stream, writerDone) = (outbox, stream, writerDone)
                Thread.detachNewThread {
                    defer { writerDone.signal() }
                    outbox.run { packet in
                        do {
                            try stream.write(packet)
                            return true
                        } catch {
                            // The stream is gone; the reader sees it too and stops the host.
                            stream.shutdownBoth()
                            return false
                        }
                    }
                }
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
                state.host.perform(request, id: id, at: Self.now(), into: &state.out)
                execute(&state)
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
            state.host.perform(request, id: id, at: Self.now(), into: &state.out)
            execute(&state)
        }
    }

    /// Queues an L2CAP payload without waiting; dropped if the link is gone.
    func enqueueL2CAP(handle: UInt16, channel: L2CAPChannelID, payload: [UInt8]) {
        state.withLock { state in
            guard state.stopped == nil else { return }
            let id = HostRequestID(state.nextID)
            state.nextID += 1
            state.host.perform(.sendL2CAP(handle: handle, channel: channel, payload: payload), id: id, at: Self.now(), into: &state.out)
            execute(&state)
        }
    }

    /// Asks for a disconnection without waiting for it.
    func requestDisconnect(handle: UInt16) {
        state.withLock { state in
            guard state.stopped == nil, state.host.connection(handle) != nil else { return }
            let id = HostRequestID(state.nextID)
            state.nextID += 1
            state.host.perform(.disconnect(handle: handle, reason: 0x13), id: id, at: Self.now(), into: &state.out)
            execute(&state)
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

    /// Stops the host and closes the stream. Safe to call more than once.
    public func close() {
        let wasRunning = state.withLock { state -> Bool in
            guard state.stopped == nil else { return false }
            state.host.transportClosed("closed by the application", at: Self.now(), into: &state.out)
            execute(&state)
            return true
        }
        // A running reader notices the stop within one poll interval, lets the writer
        // finish what was queued (a Disconnect, say), then closes the stream.
        if wasRunning && !state.withLock({ $0.started }) {
            // No reader thread exists to release the descriptor and finish the events.
            stream.close()
            recorder?.finish()
            finishStream()
        }
    }

    // MARK: - The I/O thread

    private func readLoop() {
        while true {
            let (stopped, deadline) = state.withLock { ($0.stopped != nil, $0.nextDeadline) }
            if stopped { break }
            // Wake at the next deadline, and at least every 50 ms for deadlines set by other threads.
            var timeout: Int32 = 50
            if let deadline {
                let remaining = deadline.duration(since: Self.now())
                let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
                timeout = Int32(max(0, min(50, milliseconds)))
            }
            // Back-pressure: while a link's owner has not taken what it was given, read
            // nothing more; the controller's buffers (and its flow control towards the
            // peer) hold the rest. Deadlines still fire while waiting.
            if let full = state.withLock({ $0.fullChannel }) {
                if full.inbox.waitForRoom(timeout: .now() + .milliseconds(Int(timeout))) {
                    state.withLock { if $0.fullChannel === full { $0.fullChannel = nil } }
                }
                state.withLock { state in
                    if let deadline = state.nextDeadline, deadline <= Self.now() {
                        state.nextDeadline = nil
                        state.host.tick(at: Self.now(), into: &state.out)
                        execute(&state)
                    }
                }
                continue
            }
            let bytes: [UInt8]?
            do {
                bytes = try stream.read(timeoutMilliseconds: timeout)
            } catch {
                transportFailed("read from \(endpoint) failed: \(error)")
                break
            }
            // Deadlines are checked on every pass, not only when the stream is quiet: a
            // controller that keeps talking (a busy scan) must not starve the timeouts.
            state.withLock { state in
                if let deadline = state.nextDeadline, deadline <= Self.now() {
                    state.nextDeadline = nil
                    state.host.tick(at: Self.now(), into: &state.out)
                    execute(&state)
                }
            }
            guard let bytes else { continue }
            if bytes.isEmpty {
                let pending = state.withLock { $0.decoder.pendingByteCount }
                transportFailed(pending == 0
                    ? "\(endpoint) closed the stream"
                    : "\(endpoint) closed the stream in the middle of a packet (\(pending) bytes of it received)")
                break
            }
            state.withLock { state in
                state.decoder.append(bytes)
                while state.stopped == nil {
                    let packet: [UInt8]?
                    do throws(H4StreamDecoder.Failure) {
                        packet = try state.decoder.nextPacket()
                    } catch {
                        state.host.transportClosed(error.description, at: Self.now(), into: &state.out)
                        execute(&state)
                        break
                    }
                    guard let packet else { break }
                    recorder?.record(packet, fromHost: false)
                    state.host.receive(packet, at: Self.now(), into: &state.out)
                    execute(&state)
                }
            }
        }
        // The writer drains what the host queued before it stopped; a peer that stopped
        // reading gets a second, then the stream is shut so the write fails.
        outbox.close()
        if writerDone.wait(timeout: .now() + 1) == .timedOut {
            stream.shutdownBoth()
            writerDone.wait()
        }
        stream.close()
        recorder?.finish()
        finishStream()
    }

    private func transportFailed(_ reason: String) {
        state.withLock { state in
            state.host.transportClosed(reason, at: Self.now(), into: &state.out)
            execute(&state)
        }
    }

    private func finishStream() {
        let first = readerDone.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { eventSink.finish() }
    }

    /// Carries out what the host produced into `state.out`, in the order ``HostOutput``
    /// documents, and clears it. Runs under the state lock, so packets leave in the order
    /// the host produced them whichever thread asked.
    private func execute(_ state: inout State) {
        while true {
            for packet in state.out.packets {
                let bytes = Array(state.out.bytes(of: packet))
                recorder?.record(bytes, fromHost: true)
                outbox.enqueue(bytes)
            }
            var overflowed = false
            for event in state.out.events {
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
                case .advertisingReport(let report):
                    // Reports are the one event a busy street can flood: bounded, drops counted.
                    guard let admitted = reportBudget.admit(report) else { continue }
                    if case .terminated = eventSink.yield(.advertisingReport(admitted)) { reportBudget.taken() }
                    continue
                default:
                    break
                }
                guard reportBudget.admitEvent() else {
                    // Once: the stop's own events are refused like this one.
                    if state.stopped == nil && state.out.closeError == nil { overflowed = true }
                    continue
                }
                if case .terminated = eventSink.yield(event) { reportBudget.takenEvent() }
            }
            for completion in state.out.completions {
                state.waiters.removeValue(forKey: completion.id)?.resume(returning: completion.result)
            }
            if let deadline = state.out.deadline { state.nextDeadline = deadline }
            if let error = state.out.closeError {
                state.stopped = error
                state.nextDeadline = nil
                state.readyWaiter?.resume(returning: .failure(error))
                state.readyWaiter = nil
                for (_, waiter) in state.waiters { waiter.resume(returning: .failure(error)) }
                state.waiters = [:]
                for handle in Array(state.channels.keys) { endChannel(handle, .ended(error), &state) }
                outbox.close()
            }
            state.out.removeAll()
            guard overflowed else { break }
            let why = "the application stopped taking host events (\(HostEvents.eventLimit) wait)"
            state.host.transportClosed(why, at: Self.now(), into: &state.out)
            finishStream()
        }
        // Wake senders whose connection has drained its queue (or is gone).
        for handle in Array(state.sendWaiters.keys)
        where state.host.connection(handle) == nil || state.host.queuedACLPacketCount(on: handle) == 0 {
            for waiter in state.sendWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
        }
    }

    /// The loop's monotonic clock as the host's time.
    static func now() -> MonotonicTime { MonotonicTime(nanoseconds: KernelEventLoop.now()) }

    private func endChannel(_ handle: UInt16, _ event: UserlandATTChannel.Event, _ state: inout State) {
        if let channel = state.channels.removeValue(forKey: handle) {
            channel.inbox.finish(event)
            if state.fullChannel === channel { state.fullChannel = nil }
        }
        for waiter in state.sendWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
    }
}
