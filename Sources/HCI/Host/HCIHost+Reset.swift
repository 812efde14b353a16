extension HCIHost {
    /// The reason every link is reported down with when the host resets the controller:
    /// Connection Terminated By Local Host, which is what happened (the controller sends
    /// no Disconnection Complete for links an HCI_Reset drops).
    static let resetDisconnectionReason = HCIStatus.connectionTerminatedByLocalHost

    /// Carries out ``HostRequest/reset``: forgets every command, request and connection of
    /// the controller's old life, then starts the initialisation sequence over with
    /// HCI_Reset. `id` completes in ``finishInitialization()``, or fails in ``stop(_:)``.
    mutating func resetController(_ id: HostRequestID) {
        var failed = Set<HostRequestID>()
        for command in commands.resetController() {
            switch command.purpose {
            case .request(let other, _), .rawCommand(let other), .connect(let other), .cancelConnect(let other?):
                if failed.insert(other).inserted { complete(other, .failure(.controllerReset)) }
            case .disconnect, .initialization, .internal, .cancelConnect(nil):
                // A disconnect completes with its link, below.
                break
            }
        }
        if let pending = pendingConnection, failed.insert(pending.id).inserted {
            complete(pending.id, .failure(.controllerReset))
        }
        pendingConnection = nil
        for handle in connections.keys.sorted() {
            let disconnecting = connections[handle]?.disconnect.requestID
            acl.close(handle)
            reassembler.reset(handle: handle, key: 0)
            output.events.append(.disconnected(handle: handle, reason: Self.resetDisconnectionReason))
            if let disconnecting, failed.insert(disconnecting).inserted {
                // The link the application wanted down is down.
                complete(disconnecting, .success(.disconnected(reason: Self.resetDisconnectionReason)))
            }
        }
        connections = [:]
        extendedReports.reset()
        // Everything is learnt again: a controller may come back from a reset different
        // (firmware loaded by a vendor command, a changed public address).
        discovered = Discovered()
        resetRequest = id
        phase = .initializing
        enqueueInitialization(.reset)
    }
}
