/// The host's record of one live LE connection.
struct HostConnection: Sendable {
    var info: ConnectionInfo
    /// Whether, and how far, the link is being ended from our side.
    var disconnect = HostDisconnect.live
    /// The link's encryption, as the last Encryption Change reported it.
    var isEncrypted = false
    /// Whether the peer waits for our confirmation of its indication, as ATT requires.
    var peerIndications = PeerIndicationSequence.idle
}
