import EventLoop
import HCI

/// The stream's turns on the loop: bounded reads into the host, writes of what waits,
/// and the descriptor's end.
extension UserlandHost {
    /// One turn for the descriptor: write what waits, then a bounded amount of input.
    func serve(_ readiness: KernelEventLoop.Readiness) {
        state.withLock { state in
            guard !state.stream.isClosed else { return }
            if readiness.writable || (readiness.hungUp && state.stream.writing) { flushOutbox(&state) }
            if state.stream.reading && (readiness.readable || readiness.hungUp || state.stream.backlog) { readTurn(&state) }
            if state.stopped != nil && state.stream.outbox.isEmpty { finalize(&state) }
        }
    }

    /// Feeds the host at most ``packetsPerTurn`` packets: first those already read and
    /// not yet handed over, then, if the budget allows, from one read (a packet-oriented
    /// stream: up to ``packetReadLimit`` reads). Under the state lock.
    private func readTurn(_ state: inout State) {
        var budget = Self.packetsPerTurn
        state.stream.backlog = false
        drainDecoder(&budget, &state)
        let reads = stream.isPacketOriented ? Self.packetReadLimit : 1
        var read = 0
        while read < reads, budget > 0, state.stopped == nil, !state.stream.backlog {
            read += 1
            let outcome: H4Stream.ReadOutcome
            do {
                outcome = try stream.readAvailable(into: readBuffer)
            } catch {
                stopHost("read from \(endpoint) failed: \(error)", &state)
                return
            }
            switch outcome {
            case .wouldBlock:
                read = reads
            case .endOfStream:
                let pending = state.stream.decoder.pendingByteCount
                stopHost(pending == 0
                         ? "\(endpoint) closed the stream"
                         : "\(endpoint) closed the stream in the middle of a packet (\(pending) bytes of it received)",
                         &state)
                return
            case .bytes(let count):
                state.stream.decoder.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                drainDecoder(&budget, &state)
            }
        }
        guard state.stopped == nil else { return }
        // Whole packets are left over: their turn comes after every other descriptor's
        // (the socket may have nothing more to say, so readiness would not bring it back).
        if state.stream.backlog { queueTurn(&state) }
    }

    /// Hands the host whole packets already read, while the budget lasts; sets
    /// `backlog` when it stopped with packets left.
    private func drainDecoder(_ budget: inout Int, _ state: inout State) {
        let now = Self.now()
        while state.stopped == nil {
            let packet: [UInt8]?
            do throws(H4StreamDecoder.Failure) {
                packet = try state.stream.decoder.nextPacket()
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
                state.stream.backlog = true
                return
            }
        }
    }

    /// Asks the loop for one more turn at the back of its queue.
    private func queueTurn(_ state: inout State) {
        guard !state.stream.turnQueued else { return }
        state.stream.turnQueued = true
        loop.execute { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.stream.turnQueued = false }
            self.serve(KernelEventLoop.Readiness(readable: false, writable: false, hungUp: false))
        }
    }

    /// Tells the host its stream is gone, and carries out what that produces.
    private func stopHost(_ why: String, _ state: inout State) {
        state.host.transportClosed(why, at: Self.now(), into: &state.out)
        execute(&state)
    }

    func setInterest(reading: Bool? = nil, writing: Bool? = nil, _ state: inout State) {
        let newReading = reading ?? state.stream.reading
        let newWriting = writing ?? state.stream.writing
        guard newReading != state.stream.reading || newWriting != state.stream.writing else { return }
        state.stream.reading = newReading
        state.stream.writing = newWriting
        if let watch = state.stream.watch { loop.setInterest(watch, reading: newReading, writing: newWriting) }
    }

    /// Writes what waits, as far as the stream takes it now; asks the loop for
    /// writability while anything is left.
    func flushOutbox(_ state: inout State) {
        guard state.stream.watch != nil else { return }
        let drained: Bool
        do {
            drained = try state.stream.outbox.flush { bytes throws(H4Stream.Failure) in try stream.writeAvailable(bytes) }
        } catch {
            state.stream.outbox.removeAll()
            if state.stopped == nil { stopHost("write to \(endpoint) failed: \(error)", &state) }
            setInterest(writing: false, &state)
            return
        }
        setInterest(writing: !drained, &state)
    }

    /// Ends the descriptor's life: off the loop, closed, the recorder flushed and the
    /// events finished. Once; called with the state lock held.
    func finalize(_ state: inout State) {
        guard !state.stream.isClosed else { return }
        if let watch = state.stream.watch { loop.unwatch(watch) }
        state.stream.registration = .closed
        if let timer = state.timer.disarm() { loop.cancel(timer) }
        state.stream.outbox.removeAll()
        stream.close()
        recorder?.finish()
        eventSink.finish()
    }

    /// After the host stopped: nothing more is read; what it queued last (a Disconnect,
    /// say) is written if the stream takes it within ``drainTimeout``, then the stream closes.
    func beginShutdown(_ state: inout State) {
        setInterest(reading: false, &state)
        flushOutbox(&state)
        guard state.stream.watch != nil, !state.stream.outbox.isEmpty, !state.stream.closingNow else {
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
}
