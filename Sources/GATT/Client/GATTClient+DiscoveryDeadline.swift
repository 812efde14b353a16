import ATT

extension GATTClient {
    /// Lets time pass: a whole-database discovery still running at its
    /// ``discoveryDeadline`` fails with a ``ProtocolViolation/Reason/discoveryTimedOut(pdus:)``
    /// violation, through the same completion as any other failure (a start-up discovery
    /// delivers ``GATTClientEvent/startupFailed(_:)``).
    ///
    /// The request then outstanding stays outstanding, since ATT cannot withdraw it (Vol 3
    /// Part F §3.3.2): its response is discarded when it comes, and queued procedures run
    /// after it on the same bearer. The bearer's transaction timeout is ticked separately
    /// (``ATTBearer/tick(at:)``).
    public mutating func tick(bearer: inout ATTBearer, at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        guard !isClosed, var current = active, !current.cancelled,
              let deadline = current.discoveryDeadline, deadline <= now else { return }
        current.cancelled = true
        active = current
        let timedOut = ProtocolViolation(.discoveryTimedOut(pdus: current.responses), opcode: current.request.opcode, pdu: [])
        finish(current.pending, .failure(.protocolViolation(timedOut)), bearer: &bearer, into: &actions)
        actions.append(.scheduleDeadline(bearer.deadline))
    }
}
