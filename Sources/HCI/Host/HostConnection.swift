/// The host's record of one live LE connection.
struct HostConnection: Sendable {
    var info: ConnectionInfo
    /// The disconnect request waiting for Disconnection Complete.
    var pendingDisconnect: HostRequestID?
    /// The link's encryption, as the last Encryption Change reported it.
    var isEncrypted = false
    /// Whether the peer waits for our confirmation of its indication, as ATT requires.
    var peerIndications = PeerIndicationSequence.idle
}
