/// Where a connection's peer stands in ATT's rule of one indication at a time (Vol 3
/// Part F §3.3.2, §3.4.7.2): a server sends its next Handle Value Indication only once it
/// has our Handle Value Confirmation of the previous one.
///
/// The host sees both directions of a link in order, so it is where a peer that does not
/// wait shows for certain: an indication that arrives before our confirmation of the
/// previous one has even been handed to the host was sent before the peer could have
/// received that confirmation. Such a flood, left alone, makes us queue a confirmation
/// per indication behind the controller's few ACL buffers, and everything else on the
/// link waits behind them.
enum PeerIndicationSequence: Hashable, Sendable {
    /// No indication of the peer waits for our confirmation.
    case idle
    /// An indication was delivered; our confirmation has not been handed to the host yet.
    case awaitingConfirmation
    /// The peer sent an indication while its previous one was unconfirmed: the link is
    /// being ended, and nothing more of its ATT is delivered.
    case broken

    /// ATT opcodes the sequence turns on; HCI does not import ATT.
    static let handleValueIndication: UInt8 = 0x1D
    static let handleValueConfirmation: UInt8 = 0x1E
}
