import BluetoothCore
import CMosquitto
import EventLoop
import Glibc

/// The connection's life on the loop thread: attempts, readiness, keepalive, loss, backoff.
extension MQTTClient {
    func attemptConnect() {
        let plan = state.withLock { state -> (attempt: UInt64, initialised: Bool)? in
            guard state.phase == .waiting else { return nil }
            state.attempt &+= 1
            state.phase = .connecting
            state.refusal = nil
            state.reconnectTimer = nil
            return (state.attempt, state.initialised)
        }
        guard let plan else { return }
        let rc: Int32
        if plan.initialised {
            rc = mosquitto_reconnect_async(handle.pointer)
        } else {
            // A host name is resolved here with getaddrinfo, on the loop thread; the gateway
            // is configured with an address or a name the local resolver knows.
            rc = mosquitto_connect_async(handle.pointer, configuration.host, Int32(configuration.port),
                                         Int32(configuration.keepalive))
            if rc != Int32(MOSQ_ERR_INVAL.rawValue) { state.withLock { $0.initialised = true } }
        }
        let fd = mosquitto_socket(handle.pointer)
        guard rc.isMosquittoSuccess, fd >= 0 else {
            connectionLost(reason: mosquittoMessage(rc), attempt: plan.attempt)
            return
        }
        let watch: KernelEventLoop.Watch
        do {
            // Writable first: the non-blocking connect completes, then CONNECT goes out.
            watch = try loop.watch(fd, reading: true, writing: true) { [weak self] readiness in
                self?.handleReadiness(readiness)
            }
        } catch {
            connectionLost(reason: "\(error)", attempt: plan.attempt)
            return
        }
        let timer = loop.schedule(after: configuration.connectTimeout) { [weak self] in
            self?.connectTimedOut(attempt: plan.attempt)
        }
        state.withLock { state in
            state.watch = watch
            state.connectTimer = timer
        }
    }

    /// No CONNACK in time (a black-holed address, a broker that accepts and says nothing):
    /// shut the socket down so libmosquitto reports the loss and the backoff goes on.
    private func connectTimedOut(attempt: UInt64) {
        let current = state.withLock { state -> Bool in
            guard state.attempt == attempt, state.phase == .connecting else { return false }
            state.refusal = "no CONNACK within \(configuration.connectTimeout)"
            return true
        }
        guard current else { return }
        let fd = mosquitto_socket(handle.pointer)
        if fd >= 0 { Glibc.shutdown(fd, Int32(SHUT_RDWR)) } else { connectionLost(reason: "connect timed out", attempt: attempt) }
    }

    func handleReadiness(_ readiness: KernelEventLoop.Readiness) {
        guard state.withLock({ $0.watch != nil }) else { return }  // a late call after unwatch
        if readiness.readable || readiness.hungUp { readBatch() }
        if readiness.writable, mosquitto_socket(handle.pointer) >= 0 {
            _ = mosquitto_loop_write(handle.pointer, 1)
        }
        afterIO()
    }

    /// Reads what has arrived, a bounded number of packets per turn. libmosquitto's
    /// loop_read reads as few as one packet per call and says "would block" only by errno.
    private func readBatch() {
        for _ in 0..<64 {
            errno = 0
            let rc = mosquitto_loop_read(handle.pointer, 1)
            if !rc.isMosquittoSuccess || errno == EAGAIN || errno == EWOULDBLOCK { break }
            if mosquitto_socket(handle.pointer) < 0 { break }
        }
    }

    /// After any work on the handle: notices a closed socket, hands queued messages to
    /// libmosquitto, writes everything pending in one go, and asks for writability only
    /// while something is left to write.
    func afterIO() {
        if mosquitto_socket(handle.pointer) < 0 {
            connectionLost(reason: "connection closed", attempt: nil)
            return
        }
        pump()
        if mosquitto_want_write(handle.pointer) {
            _ = mosquitto_loop_write(handle.pointer, 1)
        }
        guard mosquitto_socket(handle.pointer) >= 0 else {
            connectionLost(reason: "connection closed", attempt: nil)
            return
        }
        let (watch, more) = state.withLock { state -> (KernelEventLoop.Watch?, Bool) in
            let more = (state.phase == .connected || state.phase == .draining) && !state.queue.isEmpty
                && state.inFlight.count < window
                && !state.pumpScheduled
            if more { state.pumpScheduled = true }
            return (state.watch, more)
        }
        if let watch { loop.setInterest(watch, reading: true, writing: mosquitto_want_write(handle.pointer)) }
        // Room freed while writing (QoS 0 is done once written): continue on a later turn,
        // after the loop's other descriptors and timers.
        if more { loop.execute { [weak self] in self?.scheduledPump() } }
    }

    func scheduledPump() {
        state.withLock { $0.pumpScheduled = false }
        afterIO()
    }

    func didConnect(rc: Int32, flags: Int32) {
        guard rc == 0 else {
            let reason = mosquitto_reason_string(rc).map { String(cString: $0) } ?? "refused (\(rc))"
            state.withLock { $0.refusal = "broker refused the connection: \(reason)" }
            return
        }
        let (subscriptions, timer) = state.withLock { state -> ([(String, MQTTQoS)], KernelEventLoop.Timer?) in
            guard state.phase == .connecting else { return ([], nil) }
            state.phase = .connected
            state.failedAttempts = 0
            state.statistics.connections += 1
            defer { state.connectTimer = nil }
            return (state.subscriptions.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }, state.connectTimer)
        }
        if let timer { loop.cancel(timer) }
        events.buffer.offer(.connected(sessionPresent: flags & 1 != 0))
        for (filter, qos) in subscriptions { sendSubscribe(filter, qos: qos) }
    }

    func didDisconnect(rc: Int32) {
        connectionLost(reason: rc == 0 ? "disconnected" : mosquittoMessage(rc), attempt: nil)
    }

    /// The socket is gone (or never came): stop watching it, put back QoS 0 messages that
    /// were never written, tell the events, and schedule the next attempt. Idempotent.
    /// `attempt` names a failed attempt that never got a watch.
    func connectionLost(reason: String, attempt: UInt64?) {
        // Closing: what was not delivered cannot be now, and no reconnect follows.
        if attempt == nil, state.withLock({ $0.phase == .draining }) {
            shutDown(graceful: true)
            return
        }
        let outcome = state.withLock { state -> (watch: KernelEventLoop.Watch?, timer: KernelEventLoop.Timer?, event: String?)? in
            if let attempt, attempt != state.attempt { return nil }
            guard state.phase == .connecting || state.phase == .connected else {
                if state.phase == .closed, let watch = state.watch {
                    state.watch = nil
                    return (watch, nil, nil)
                }
                return nil
            }
            let wasConnected = state.phase == .connected
            state.phase = .waiting
            // QoS 1 messages stay: libmosquitto re-sends them after the reconnect. QoS 0 ones
            // it forgets, so those not yet written go back in front of the queue, in order.
            let unwritten = state.inFlight.filter { $0.value.message.qos == .atMostOnce }
            for mid in unwritten.keys { state.inFlight.removeValue(forKey: mid) }
            for queued in unwritten.values.sorted(by: { $0.sequence > $1.sequence }) { state.queue.prepend(queued) }
            let watch = state.watch
            state.watch = nil
            let timer = state.connectTimer
            state.connectTimer = nil
            let event: String?
            if wasConnected {
                event = state.refusal.map { "\(reason): \($0)" } ?? reason
            } else {
                event = state.refusal
            }
            return (watch, timer, event)
        }
        guard let outcome else { return }
        if let watch = outcome.watch { loop.unwatch(watch) }
        if let timer = outcome.timer { loop.cancel(timer) }
        if let event = outcome.event { events.buffer.offer(.disconnected(reason: event)) }
        scheduleReconnect()
    }

    /// The wait before the next connection attempt: 0.25 s, doubling to 30 s, back to the
    /// start once the broker accepts a connection. No jitter: one gateway per broker link,
    /// and tests can predict it.
    static let reconnectBackoff = Backoff(initialDelay: .milliseconds(250), maximumDelay: .seconds(30), jitter: 0)

    private func scheduleReconnect() {
        state.withLock { state in
            guard state.phase == .waiting, state.reconnectTimer == nil else { return }
            let delay = Self.reconnectBackoff.delay(attempt: state.failedAttempts, random: 0)
            state.failedAttempts += 1
            state.reconnectTimer = loop.schedule(after: delay) { [weak self] in self?.attemptConnect() }
        }
    }

    /// libmosquitto's keepalive: PINGREQ when due, and the connection dropped when the
    /// broker's PINGRESP does not come.
    func scheduleMisc() {
        state.withLock { state in
            guard state.phase != .closed else { return }
            state.miscTimer = loop.schedule(after: Self.miscInterval) { [weak self] in
                guard let self else { return }
                if self.state.withLock({ $0.watch != nil }) {
                    _ = mosquitto_loop_misc(self.handle.pointer)
                    self.afterIO()
                }
                self.scheduleMisc()
            }
        }
    }

    /// Ends the client on the loop thread; graceful sends DISCONNECT first. What is still
    /// queued or unacknowledged is counted and named in the last event. Idempotent: a
    /// second call only releases its ``close()`` callers.
    func shutDown(graceful: Bool) {
        let (timers, undelivered, waiters, wasClosed) = state.withLock { state in
            let wasClosed = state.phase == .closed
            state.phase = .closed
            let undelivered = state.queue.count + state.inFlight.count
            state.statistics.undeliveredAtClose += undelivered
            state.queue = OutboundRing()
            state.inFlight = [:]
            let waiters = state.closeWaiters
            state.closeWaiters = []
            defer {
                state.reconnectTimer = nil
                state.connectTimer = nil
                state.miscTimer = nil
                state.drainTimer = nil
            }
            return ([state.reconnectTimer, state.connectTimer, state.miscTimer, state.drainTimer].compactMap { $0 },
                    undelivered, waiters, wasClosed)
        }
        for timer in timers { loop.cancel(timer) }
        defer { for waiter in waiters { waiter.resume() } }
        guard !wasClosed else { return }
        let fd = mosquitto_socket(handle.pointer)
        if fd >= 0 {
            if graceful {
                _ = mosquitto_disconnect_v5(handle.pointer, 0, nil)
                _ = mosquitto_loop_write(handle.pointer, 1)
            } else {
                // The peer sees the stream end with no DISCONNECT, as from a killed process.
                Glibc.shutdown(fd, Int32(SHUT_RDWR))
            }
        }
        let watch = state.withLock { state -> KernelEventLoop.Watch? in
            defer { state.watch = nil }
            return state.watch
        }
        if let watch { loop.unwatch(watch) }
        var reason = graceful ? "closed" : "closed without DISCONNECT"
        if undelivered > 0 { reason += "; \(undelivered) messages not delivered or not acknowledged" }
        events.buffer.offer(.disconnected(reason: reason))
        events.buffer.finish()
        messages.buffer.finish()
    }
}
