import HCI

/// ACL for the links' owners: their ATT channels, sends that do not wait, and the
/// per-link back-pressure those sends pace themselves on.
extension UserlandHost {
    /// The ATT channel of a live connection, when ATT is routed to channels.
    public func attChannel(for handle: UInt16) -> UserlandATTChannel? {
        state.withLock { $0.channels.byHandle[handle] }
    }

    /// Queues an L2CAP payload and returns: no request, no completion. The link's queue
    /// is bounded; its owner paces itself with ``canSend(on:)`` and ``sendReady(on:)``,
    /// and a payload past the bound is dropped with a warning the host counts
    /// (``HostWarning/l2capDropped(handle:_:)``). After the link is gone, nothing is sent.
    func enqueueL2CAP(handle: UInt16, channel: L2CAPChannelID, payload: ArraySlice<UInt8>) {
        state.withLock { state in
            guard state.stopped == nil else { return }
            state.host.send(payload, on: handle, channel: channel, at: Self.now(), into: &state.out)
            execute(&state)
        }
    }

    /// Whether `handle` is still a connection of this host (false from its Disconnection Complete on).
    public func isConnected(_ handle: UInt16) -> Bool {
        state.withLock { $0.host.connection(handle) != nil }
    }

    /// True when nothing of this connection waits for controller buffers.
    public func canSend(on handle: UInt16) -> Bool {
        state.withLock { $0.host.connection(handle) != nil && $0.host.queuedACLPacketCount(on: handle) == 0 }
    }

    /// Returns once ``canSend(on:)`` is true, or the connection is gone: pace bulk sends on it.
    public func sendReady(on handle: UInt16) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                if Self.drained(handle, state.host) {
                    continuation.resume()
                } else {
                    state.channels.waitToSend(on: handle, continuation)
                }
            }
        }
    }

    /// Whether a sender waiting on `handle` may go: its queue is empty, or the link is gone.
    static func drained(_ handle: UInt16, _ host: borrowing HCIHost) -> Bool {
        host.connection(handle) == nil || host.queuedACLPacketCount(on: handle) == 0
    }
}
