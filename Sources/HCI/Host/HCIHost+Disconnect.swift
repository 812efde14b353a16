extension HCIHost {
    /// How long a requested disconnect waits for the link's queued ACL to be sent and
    /// completed before it ends the link anyway. Long enough for a controller that is
    /// slow to return buffers; short enough that a stuck one cannot keep a link alive.
    public static let disconnectDrainLimit = Duration.seconds(2)

    /// Carries out ``HostRequest/disconnect(handle:reason:)``: the link drains first, so
    /// data sent just before still reaches the peer (see ``HostDisconnect``).
    mutating func requestDisconnect(_ handle: UInt16, reason: UInt8, id: HostRequestID, at now: MonotonicTime) {
        guard connections[handle] != nil else {
            complete(id, .failure(.unknownConnection(handle)))
            return
        }
        apply(.requested(id, reason: reason, deadline: now + Self.disconnectDrainLimit), to: handle)
        // A link with nothing in the controller disconnects in this very call.
        advanceDisconnect(handle, at: now)
    }

    /// Feeds one input to a link's disconnect state and carries out the step it yields.
    mutating func apply(_ input: HostDisconnect.Input, to handle: UInt16) {
        guard let step = connections[handle]?.disconnect.on(input) else { return }
        switch step {
        case .nothing:
            break
        case .busy:
            if case .requested(let id, _, _) = input {
                complete(id, .failure(.busy("connection 0x\(String(handle, radix: 16)) is already disconnecting")))
            }
        case .disconnect(let reason):
            commands.enqueue(Disconnect(connectionHandle: handle, reason: reason), .disconnect(handle: handle))
        case .disconnectAbandoningData(let reason):
            // The controller did not complete the link's data in time. What never left
            // the host is dropped rather than sent behind the Disconnect, and both that
            // and what the controller still holds are reported: lost, but not silently.
            let unsent = acl.discardQueued(on: handle)
            warn(.undeliveredAtDisconnect(handle: handle, unsent: unsent, unacknowledged: acl.inFlight(on: handle)))
            commands.enqueue(Disconnect(connectionHandle: handle, reason: reason), .disconnect(handle: handle))
        case .fail(let id, let status):
            complete(id, .failure(.commandFailed(Disconnect.opcode, status)))
        }
    }

    /// Checks a draining link: disconnects it once its ACL is all completed, or at the drain limit.
    mutating func advanceDisconnect(_ handle: UInt16, at now: MonotonicTime) {
        let idle = acl.queuedCount(on: handle) == 0 && acl.inFlight(on: handle) == 0
        apply(.checked(idle: idle, at: now), to: handle)
    }

    /// Advances every draining link and returns the earliest drain deadline still ahead,
    /// for the host's next tick.
    mutating func advanceDisconnects(at now: MonotonicTime) -> MonotonicTime? {
        var earliest: MonotonicTime?
        for (handle, connection) in connections {
            guard case .draining = connection.disconnect else { continue }
            advanceDisconnect(handle, at: now)
            if case .draining(_, _, let deadline)? = connections[handle]?.disconnect {
                earliest = Self.earlier(earliest, deadline)
            }
        }
        return earliest
    }
}
