import HCI

/// The ACL side of a ``UserlandHost`` that its links' owners see: the ATT channel of each
/// connection (when the host routes ATT to channels), and the tasks that wait for a
/// connection's send queue to drain.
struct UserlandChannels {
    private(set) var byHandle: [UInt16: UserlandATTChannel] = [:]
    private var sendWaiters: [UInt16: [CheckedContinuation<Void, Never>]] = [:]

    /// A connection came up: its channel exists from now on, so nothing it receives is lost.
    mutating func open(_ connection: ConnectionInfo, host: UserlandHost) {
        byHandle[connection.handle] = UserlandATTChannel(connection: connection, host: host)
    }

    /// Hands a received PDU to its connection's channel (which bounds and counts).
    func deliver(_ pdu: [UInt8], on handle: UInt16) {
        byHandle[handle]?.deliver(pdu)
    }

    /// The connection ended: its channel closes with `event`, and whoever waits to send on
    /// it returns.
    mutating func end(_ handle: UInt16, _ event: UserlandATTChannel.Event) {
        if let channel = byHandle.removeValue(forKey: handle) {
            channel.inbox.finish(event)
        }
        for waiter in sendWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
    }

    /// The host stopped: every channel ends with its error.
    mutating func endAll(_ error: HostError) {
        for handle in Array(byHandle.keys) { end(handle, .ended(error)) }
    }

    /// Parks a task until `handle`'s queue drains (see ``wakeDrained(_:)``).
    mutating func waitToSend(on handle: UInt16, _ continuation: CheckedContinuation<Void, Never>) {
        sendWaiters[handle, default: []].append(continuation)
    }

    /// Wakes the senders whose connection has drained its queue, or is gone.
    mutating func wakeDrained(_ host: borrowing HCIHost) {
        for handle in Array(sendWaiters.keys) where UserlandHost.drained(handle, host) {
            for waiter in sendWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
        }
    }
}

