import ATT

/// What the caller of a ``GATTClient`` must do after each input.
public enum GATTClientAction: Hashable, Sendable {
    /// Transmit this ATT PDU on the bearer.
    case send([UInt8])
    /// The command with this id finished.
    case complete(GATTRequestID, Result<GATTClientResponse, GATTClientError>)
    /// Hand this event to the application.
    case deliver(GATTClientEvent)
    /// Raise link security (pair or encrypt) before transmitting the PDUs that follow:
    /// the server asked for it with Insufficient Authentication or Encryption, and the
    /// request will be repeated once.
    case raiseSecurity
    /// Call ``GATTClient/tick(at:)`` at this time (nil: no deadline pending).
    case scheduleDeadline(MonotonicTime?)
    /// The bearer is dead: close the link.
    case close(GATTClientError)
}

extension GATTClientAction {
    /// Whether this finishes a command (what a link that went away still owes its caller).
    var isCompletion: Bool {
        if case .complete = self { return true }
        return false
    }
}
