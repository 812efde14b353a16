/// What a link reports to the engine that owns it.
package enum LinkEvent: Sendable {
    /// One complete ATT PDU from the peer.
    case received([UInt8])
    /// The link is gone, and why.
    case closed(DisconnectReason)
}
