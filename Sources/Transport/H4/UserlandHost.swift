#if canImport(Glibc)
import Glibc
#endif
import GATT
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

    private struct State: ~Copyable {
        var host: HCIHost
        var decoder = H4StreamDecoder()
        var nextID: UInt64 = 1
        var waiters: [HostRequestID: CheckedContinuation<Result<HostCompletion, HostError>, Never>] = [:]
        var readyWaiter: CheckedContinuation<Result<ControllerInfo, HostError>, Never>?
        var started = false
        var stopped: HostError?
        /// Set once the descriptor is closed: nothing may touch it again.
        var finalized = false
        /// Set while the host is being released: stopping closes at once, without a drain.
        var closingNow = false
        /// The host's output, reused for every call.
        var out = HostOutput()
        /// Bytes waiting to be written, in order, from `writeHead` on.
        var outbox: [UInt8] = []
        var writeHead = 0
        /// The registration on the loop; nil before start and after the end.
        var watch: KernelEventLoop.Watch?
        /// What the loop serves the descriptor for now.
        var reading = false
        var writing = false
        /// The deadline a loop timer is armed for, and that timer.
        var timer = DeadlineTimer<KernelEventLoop.Timer>()
        /// Whole packets were read but not yet handed to the host (the turn's budget ran
        /// out): the next turn starts with them.
        var backlog = false
        /// A turn is queued on the loop (``queueTurn(_:)``).
        var turnQueued = false
        /// Per-connection ATT channels, when ATT is routed to them.
        var channels: [UInt16: UserlandATTChannel] = [:]
        var sendWaiters: [UInt16: [CheckedContinuation<Void, Never>]] = [:]
        /// The links' Security Managers, when the configuration enables pairing.
        var security: UserlandSecurity
    }

    private let stream: H4Stream
    private let loop: KernelEventLoop
    private let recorder: (any H4PacketRecorder)?
    private let eventSink = HostEvents.Buffer()
    private let state: Mutex<State>
    /// One turn's read buffer; only touched under the state lock.
    private nonisolated(unsafe) let readBuffer: UnsafeMutableRawBufferPointer
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
                throw H4Stream.Failure(operation: "start the event loop (\(error))", errno: (error as? KernelTransportError)?.errno ?? EIO)
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
            state.closingNow = true
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
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ControllerInfo, HostError>, Never>) in
            state.withLock { state in
                if let error = state.stopped {
                    continuation.resume(returning: .failure(error))
                    return
                }
                guard !state.started else {
                    continuation.resume(returning: .failure(.busy("start() was already called")))
                    return
                }
                state.started = true
                state.readyWaiter = continuation
                do {
                    // The handler holds the host weakly: a host nobody holds closes itself.
                    state.watch = try loop.watch(stream.descriptor, reading: true, writing: false) { [weak self] readiness in
                        self?.serve(readiness)
                    }
                    state.reading = true
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

    /// Raises the link's security: pairs with the peer (or joins the pairing it started)
    /// and returns once the link is encrypted. Throws ``AttuneError/securityUnavailable(_:)``
    /// when the host was not configured to pair, and ``AttuneError/securityFailed(_:)`` with
    /// the Pairing Failed reason or HCI status when pairing or encryption failed.
    public func raiseSecurity(on handle: UInt16) async throws(AttuneError) {
        let pairs = state.withLock { $0.host.configuration.pairingEnabled }
        guard pairs else {
            throw .securityUnavailable("this userland host was started with pairing disabled (HostConfiguration.pairingEnabled)")
        }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, AttuneError>, Never>) in
            state.withLock { state in
                guard state.stopped == nil else {
                    continuation.resume(returning: .failure(.notConnected))
                    return
                }
                state.security.raise(handle, waiter: continuation, host: &state.host, out: &state.out,
                                     nextID: &state.nextID, at: Self.now())
                execute(&state)
            }
        }
        try result.get()
    }

    /// Encrypts a link we are central of with a stored bond (LE Enable Encryption with its
    /// EDIV and Rand; 0 and 0 for Secure Connections) and returns once Encryption Change
    /// reports it on. Throws ``AttuneError/securityFailed(_:)`` with the HCI status when
    /// the peer or the controller refused (PIN or Key Missing, 0x06: the peer lost the bond).
    func encrypt(on handle: UInt16, with bond: PairingKeys) async throws(AttuneError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, AttuneError>, Never>) in
            state.withLock { state in
                guard state.stopped == nil else {
                    continuation.resume(returning: .failure(.notConnected))
                    return
                }
                state.security.encrypt(handle, with: bond, waiter: continuation, host: &state.host, out: &state.out,
                                       nextID: &state.nextID, at: Self.now())
                execute(&state)
            }
        }
        try result.get()
    }

    /// A user's answer to a pairing request of link `handle` (see ``PairingAgent``).
    func answerPairing(handle: UInt16, request id: UInt64, with answer: SecurityManagerAnswer) {
        state.withLock { state in
            guard state.stopped == nil else { return }
            state.security.answer(handle, request: id, with: answer, host: &state.host, out: &state.out,
                                  nextID: &state.nextID, at: Self.now())
            execute(&state)
        }
    }

    /// How the link is secured, as the pairing that keyed it left it: what an ATT server
    /// checks attribute permissions against. `.none` before encryption.
    public func linkSecurity(on handle: UInt16) -> LinkSecurity { state.withLock { $0.security.linkSecurity(handle) } }

    /// Whether the link is encrypted; nil when no connection has this handle.
    public func isEncrypted(_ handle: UInt16) -> Bool? { state.withLock { $0.host.isEncrypted(handle) } }

    /// True when nothing of this connection waits for controller buffers.
    /// Whether `handle` is still a connection of this host (false from its Disconnection Complete on).
    public func isConnected(_ handle: UInt16) -> Bool {
        state.withLock { $0.host.connection(handle) != nil }
    }

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

    // MARK: - On the loop

    /// One turn for the descriptor: write what waits, then a bounded amount of input.
    private func serve(_ readiness: KernelEventLoop.Readiness) {
        state.withLock { state in
            guard !state.finalized else { return }
            if readiness.writable || (readiness.hungUp && state.writing) { flushOutbox(&state) }
            if state.reading && (readiness.readable || readiness.hungUp || state.backlog) { readTurn(&state) }
            if state.stopped != nil && state.writeHead == state.outbox.count { finalize(&state) }
        }
    }

    /// Feeds the host at most ``packetsPerTurn`` packets: first those already read and
    /// not yet handed over, then, if the budget allows, from one read (a packet-oriented
    /// stream: up to ``packetReadLimit`` reads). Under the state lock.
    private func readTurn(_ state: inout State) {
        var budget = Self.packetsPerTurn
        state.backlog = false
        drainDecoder(&budget, &state)
        let reads = stream.isPacketOriented ? Self.packetReadLimit : 1
        var read = 0
        while read < reads, budget > 0, state.stopped == nil, !state.backlog {
            read += 1
            let outcome: H4Stream.ReadOutcome
            do {
                outcome = try stream.readAvailable(into: readBuffer)
            } catch {
                state.host.transportClosed("read from \(endpoint) failed: \(error)", at: Self.now(), into: &state.out)
                execute(&state)
                return
            }
            switch outcome {
            case .wouldBlock:
                read = reads
            case .endOfStream:
                let pending = state.decoder.pendingByteCount
                let why = pending == 0
                    ? "\(endpoint) closed the stream"
                    : "\(endpoint) closed the stream in the middle of a packet (\(pending) bytes of it received)"
                state.host.transportClosed(why, at: Self.now(), into: &state.out)
                execute(&state)
                return
            case .bytes(let count):
                state.decoder.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                drainDecoder(&budget, &state)
            }
        }
        guard state.stopped == nil else { return }
        // Whole packets are left over: their turn comes after every other descriptor's
        // (the socket may have nothing more to say, so readiness would not bring it back).
        if state.backlog { queueTurn(&state) }
    }

    /// Hands the host whole packets already read, while the budget lasts; sets
    /// `backlog` when it stopped with packets left.
    private func drainDecoder(_ budget: inout Int, _ state: inout State) {
        let now = Self.now()
        while state.stopped == nil {
            let packet: [UInt8]?
            do throws(H4StreamDecoder.Failure) {
                packet = try state.decoder.nextPacket()
            } catch {
                state.host.transportClosed(error.description, at: now, into: &state.out)
                execute(&state)
                return
            }
            guard let packet else { return }
            if let recorder { recorder.record(recorder.keepsKeys ? packet : H4KeyMask.masked(packet), fromHost: false) }
            state.host.receive(packet, at: now, into: &state.out)
            execute(&state)
            budget -= 1
            if budget == 0 {
                state.backlog = true
                return
            }
        }
    }

    /// Asks the loop for one more turn at the back of its queue.
    private func queueTurn(_ state: inout State) {
        guard !state.turnQueued else { return }
        state.turnQueued = true
        loop.execute { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.turnQueued = false }
            self.serve(KernelEventLoop.Readiness(readable: false, writable: false, hungUp: false))
        }
    }

    private func timerFired() {
        state.withLock { state in
            state.timer.fired()
            guard state.stopped == nil else { return }
            let now = Self.now()
            state.host.tick(at: now, into: &state.out)
            if state.host.configuration.pairingEnabled {
                state.security.tick(host: &state.host, out: &state.out, nextID: &state.nextID, at: now)
            }
            execute(&state)
        }
    }

    /// Arms a loop timer for `deadline` unless one fires no later. A timer that fires
    /// early for a deadline that moved (a command answered) costs one empty tick.
    private func arm(_ deadline: MonotonicTime, _ state: inout State) {
        let replaced = state.timer.arm(deadline) { deadline in
            loop.schedule(after: deadline.duration(since: Self.now())) { [weak self] in self?.timerFired() }
        }
        if let replaced { loop.cancel(replaced) }
    }

    private func setInterest(reading: Bool? = nil, writing: Bool? = nil, _ state: inout State) {
        let newReading = reading ?? state.reading
        let newWriting = writing ?? state.writing
        guard newReading != state.reading || newWriting != state.writing else { return }
        state.reading = newReading
        state.writing = newWriting
        if let watch = state.watch { loop.setInterest(watch, reading: newReading, writing: newWriting) }
    }

    /// Writes what waits, as far as the stream takes it now; asks the loop for
    /// writability while anything is left.
    private func flushOutbox(_ state: inout State) {
        guard !state.finalized, state.watch != nil else { return }
        while state.writeHead < state.outbox.count {
            let written: Int
            do {
                let head = state.writeHead
                written = try state.outbox.withUnsafeBytes { raw throws(H4Stream.Failure) in
                    try stream.writeAvailable(UnsafeRawBufferPointer(rebasing: raw[head...]))
                }
            } catch {
                state.outbox.removeAll()
                state.writeHead = 0
                if state.stopped == nil {
                    state.host.transportClosed("write to \(endpoint) failed: \(error)", at: Self.now(), into: &state.out)
                    execute(&state)
                }
                setInterest(writing: false, &state)
                return
            }
            if written == 0 { break }
            state.writeHead += written
        }
        if state.writeHead == state.outbox.count {
            state.outbox.removeAll(keepingCapacity: state.outbox.capacity <= 64 * 1024)
            state.writeHead = 0
            setInterest(writing: false, &state)
        } else {
            if state.writeHead >= 64 * 1024 {
                state.outbox.removeFirst(state.writeHead)
                state.writeHead = 0
            }
            setInterest(writing: true, &state)
        }
    }

    /// Ends the descriptor's life: off the loop, closed, the recorder flushed and the
    /// events finished. Once; called with the state lock held.
    private func finalize(_ state: inout State) {
        guard !state.finalized else { return }
        state.finalized = true
        if let watch = state.watch { loop.unwatch(watch) }
        state.watch = nil
        if let timer = state.timer.disarm() { loop.cancel(timer) }
        state.outbox = []
        state.writeHead = 0
        stream.close()
        recorder?.finish()
        eventSink.finish()
    }

    /// After the host stopped: nothing more is read; what it queued last (a Disconnect,
    /// say) is written if the stream takes it within ``drainTimeout``, then the stream closes.
    private func beginShutdown(_ state: inout State) {
        setInterest(reading: false, &state)
        flushOutbox(&state)
        guard state.watch != nil, state.writeHead < state.outbox.count, !state.closingNow else {
            finalize(&state)
            return
        }
        if let timer = state.timer.disarm() { loop.cancel(timer) }
        state.timer.arm(Self.now() + Self.drainTimeout) { _ in
            loop.schedule(after: Self.drainTimeout) { [weak self] in
                guard let self else { return }
                self.state.withLock { state in self.finalize(&state) }
            }
        }
    }

    /// Carries out what the host produced into `state.out`, in the order ``HostOutput``
    /// documents, and clears it. Runs under the state lock, so packets leave in the order
    /// the host produced them whichever thread asked.
    private func execute(_ state: inout State) {
        while true {
            if !state.out.packets.isEmpty && !state.finalized {
                if let recorder {
                    let keepsKeys = recorder.keepsKeys
                    for packet in state.out.packets {
                        let bytes = Array(state.out.bytes(of: packet))
                        recorder.record(keepsKeys ? bytes : H4KeyMask.masked(bytes), fromHost: true)
                    }
                }
                // Packets are back to back in the output's buffer, so they go out in one piece.
                if let first = state.out.packets.first, let last = state.out.packets.last {
                    state.outbox.append(contentsOf: state.out.buffer[first.lowerBound..<last.upperBound])
                }
            }
            var overflowed = false
            // SMP's share of this round, handled once the round's output is consumed
            // (handling it produces new output for the next round).
            var securityEvents: [HostEvent] = []
            var securityCompletions: [HostOutput.Completion] = []
            let pairs = state.host.configuration.pairingEnabled
            for event in state.out.events {
                if pairs {
                    switch event {
                    case .securityManagerData, .longTermKeyRequested:
                        securityEvents.append(event)
                        continue
                    case .encryptionChanged, .encryptionKeyRefreshed, .disconnected, .connectionEnded:
                        securityEvents.append(event)
                    default:
                        break
                    }
                }
                switch event {
                case .ready(let info):
                    state.readyWaiter?.resume(returning: .success(info))
                    state.readyWaiter = nil
                case .connected(let info) where routesATTToChannels:
                    state.channels[info.handle] = UserlandATTChannel(connection: info, host: self)
                case .attributeData(let handle, let pdu) where routesATTToChannels:
                    state.channels[handle]?.deliver(pdu)
                    continue
                case .indicationBeforeConfirmation(let handle):
                    // The link's owner learns why it ends now; the Disconnection Complete
                    // that follows finds the channel gone.
                    endChannel(handle, .indicationBeforeConfirmation, &state)
                case .disconnected(let handle, let reason):
                    endChannel(handle, .disconnected(reason), &state)
                case .connectionEnded(let handle, let error):
                    endChannel(handle, .ended(error), &state)
                case .advertisingReport(let report):
                    // Reports are the one event a busy street can flood: bounded, drops counted.
                    eventSink.offerReport(report)
                    continue
                default:
                    break
                }
                guard eventSink.offer(event) else {
                    // Once: the stop's own events are refused like this one.
                    if state.stopped == nil && state.out.closeError == nil { overflowed = true }
                    continue
                }
            }
            for completion in state.out.completions {
                if let waiter = state.waiters.removeValue(forKey: completion.id) {
                    waiter.resume(returning: completion.result)
                } else if pairs {
                    securityCompletions.append(completion)
                }
            }
            if let deadline = state.out.deadline, state.out.closeError == nil { arm(deadline, &state) }
            if let error = state.out.closeError {
                state.stopped = error
                state.readyWaiter?.resume(returning: .failure(error))
                state.readyWaiter = nil
                for (_, waiter) in state.waiters { waiter.resume(returning: .failure(error)) }
                state.waiters = [:]
                for handle in Array(state.channels.keys) { endChannel(handle, .ended(error), &state) }
                state.security.stopped(error)
            }
            let stopping = state.out.closeError != nil
            state.out.removeAll()
            if stopping {
                beginShutdown(&state)
            } else if state.writeHead < state.outbox.count {
                if state.outbox.count - state.writeHead > Self.outboxLimit {
                    let why = "\(endpoint) stopped taking input (\(state.outbox.count - state.writeHead) bytes wait to be written)"
                    state.host.transportClosed(why, at: Self.now(), into: &state.out)
                    continue
                }
                flushOutbox(&state)
            }
            if state.stopped == nil && (!securityEvents.isEmpty || !securityCompletions.isEmpty) {
                let now = Self.now()
                for event in securityEvents {
                    state.security.handle(event, host: &state.host, out: &state.out, nextID: &state.nextID, at: now)
                }
                for completion in securityCompletions {
                    _ = state.security.completed(completion.id, completion.result, host: &state.host, out: &state.out,
                                                 nextID: &state.nextID, at: now)
                }
                if !overflowed { continue }
            }
            guard overflowed else { break }
            let why = "the application stopped taking host events (\(HostEvents.eventLimit) wait)"
            state.host.transportClosed(why, at: Self.now(), into: &state.out)
            eventSink.finish()
        }
        // The SMP timers of the links (30 s per procedure) share the host's loop timer.
        if state.stopped == nil, let deadline = state.security.deadline { arm(deadline, &state) }
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
        }
        for waiter in state.sendWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
    }
}
