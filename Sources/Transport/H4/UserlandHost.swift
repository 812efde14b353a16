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
    /// Events from the host, in order. Finishes when the host stops.
    public let events: AsyncStream<HostEvent>
    public let endpoint: H4Endpoint

    private struct State: ~Copyable {
        var host: HCIHost
        var decoder = H4StreamDecoder()
        var nextID: UInt64 = 1
        var waiters: [HostRequestID: CheckedContinuation<Result<HostCompletion, HostError>, Never>] = [:]
        var readyWaiter: CheckedContinuation<Result<ControllerInfo, HostError>, Never>?
        var started = false
        var stopped: HostError?
        var nextDeadline: ContinuousClock.Instant?
    }

    private let stream: H4Stream
    private let recorder: (any H4PacketRecorder)?
    private let eventSink: AsyncStream<HostEvent>.Continuation
    private let state: Mutex<State>
    private let readerDone = Mutex<Bool>(false)

    /// Opens the endpoint. Nothing is sent until ``start()``.
    public init(endpoint: H4Endpoint, configuration: HostConfiguration = HostConfiguration(),
                recorder: (any H4PacketRecorder)? = nil) throws(H4Stream.Failure) {
        self.endpoint = endpoint
        self.stream = try H4Stream.open(endpoint)
        self.recorder = recorder
        (events, eventSink) = AsyncStream.makeStream(of: HostEvent.self, bufferingPolicy: .unbounded)
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
                return true
            }
            if startReader {
                Thread.detachNewThread { [self] in readLoop() }
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

    /// The live connections.
    public var connectionHandles: [UInt16] { state.withLock { $0.host.connectionHandles } }

    /// Why the host stopped, or nil while it runs.
    public var stopReason: HostError? { state.withLock { $0.stopped } }

    /// Stops the host and closes the stream. Safe to call more than once.
    public func close() {
        let wasRunning = state.withLock { state -> Bool in
            guard state.stopped == nil else { return false }
            execute(state.host.transportClosed("closed by the application", at: .now), &state)
            return true
        }
        stream.shutdownBoth()
        if wasRunning && !state.withLock({ $0.started }) {
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
                let remaining = ContinuousClock.now.duration(to: deadline)
                let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
                timeout = Int32(max(0, min(50, milliseconds)))
            }
            let bytes: [UInt8]?
            do {
                bytes = try stream.read(timeoutMilliseconds: timeout)
            } catch {
                transportFailed("read from \(endpoint) failed: \(error)")
                break
            }
            guard let bytes else {
                state.withLock { state in
                    if let deadline = state.nextDeadline, deadline <= .now {
                        state.nextDeadline = nil
                        execute(state.host.tick(at: .now), &state)
                    }
                }
                continue
            }
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
                        execute(state.host.transportClosed(error.description, at: .now), &state)
                        break
                    }
                    guard let packet else { break }
                    recorder?.record(packet, fromHost: false)
                    execute(state.host.receive(packet, at: .now), &state)
                }
            }
        }
        stream.close()
        recorder?.finish()
        finishStream()
    }

    private func transportFailed(_ reason: String) {
        state.withLock { state in
            execute(state.host.transportClosed(reason, at: .now), &state)
        }
    }

    private func finishStream() {
        let first = readerDone.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { eventSink.finish() }
    }

    /// Carries out the host's actions. Runs under the state lock, so packets leave in the
    /// order the host produced them whichever thread asked.
    private func execute(_ actions: [HostAction], _ state: inout State) {
        for action in actions {
            switch action {
            case .send(let packet):
                recorder?.record(packet, fromHost: true)
                do {
                    try stream.write(packet)
                } catch {
                    // The stream is gone; the reader sees it too and stops the host.
                    stream.shutdownBoth()
                }
            case .deliver(let event):
                if case .ready(let info) = event {
                    state.readyWaiter?.resume(returning: .success(info))
                    state.readyWaiter = nil
                }
                eventSink.yield(event)
            case .complete(let id, let result):
                state.waiters.removeValue(forKey: id)?.resume(returning: result)
            case .schedule(let deadline):
                state.nextDeadline = deadline
            case .close(let error):
                state.stopped = error
                state.readyWaiter?.resume(returning: .failure(error))
                state.readyWaiter = nil
                for (_, waiter) in state.waiters { waiter.resume(returning: .failure(error)) }
                state.waiters = [:]
                stream.shutdownBoth()
            }
        }
    }
}
