import ATT
import HCI

/// The ATT channel (fixed CID 4) of one connected LE link: whole PDUs in both directions.
///
/// This is the narrow edge every transport implements: the kernel's L2CAP socket, the
/// userland host's fixed channel, or a ``MemoryRadio`` pipe. The engines above it never
/// see sockets or HCI.
///
/// Receiving is pull-based: the link's owner asks for the next batch when it is ready
/// for more, and a transport reads nothing it was not asked for beyond one bounded
/// inbox. So a consumer that falls behind leaves data in the kernel socket buffer or the
/// controller, and memory between the wire and the engines stays bounded.
package protocol ATTLink: AnyObject, Sendable {
    var peerAddress: BluetoothAddress { get }
    var peerAddressType: BluetoothAddressType { get }
    /// What the peer sent since the last call, oldest first, waiting for at least one
    /// event. The last batch ends with `.closed`; after it, nothing more is asked.
    /// For exactly one owner. Runs on the owner's actor (`nonisolated(nonsending)`), so
    /// the wake-up from the transport lands on that actor directly: one hop per batch.
    nonisolated(nonsending) func receive() async -> [LinkEvent]
    /// Gives back the storage of a batch ``receive()`` returned, once the owner is done
    /// with it, for the transport to build a later batch in; `batch` is left empty. A
    /// transport that builds its batches elsewhere lets it go.
    func recycle(_ batch: inout [LinkEvent])
    /// How many PDUs from the peer the transport dropped since the last call because the
    /// owner did not take them in time (only a transport that must not pause for one
    /// link, the userland host, drops any); zero elsewhere.
    func takeDroppedCount() -> Int
    /// The notifications and indications among those drops, by handle, since the last
    /// call: the owner adds them to the next notification's `lostBefore`. Asked only when
    /// ``takeDroppedCount()`` was not zero.
    func takeDroppedNotifications() -> DroppedNotifications
    /// Queues one PDU; never blocks. Dropped once the link is closed.
    func send(_ pdu: [UInt8])
    /// Queues one PDU that sits in a buffer of the caller's (a server's output); a
    /// transport that can send it from there copies it only when it has to queue it.
    func send(_ pdu: ArraySlice<UInt8>)
    /// Whether the transport has room for another PDU right now (socket buffer, ACL
    /// credits); write-without-response and notifications wait for this.
    var canSend: Bool { get }
    /// Returns once ``canSend`` is true or the link closed.
    func sendReady() async
    /// True once the link has ended, from either side, even before the owner's
    /// ``receive()`` delivers `.closed`: nothing sent now arrives, so nobody should wait
    /// for room on it (``sendReady()`` returns at once, and ``canSend`` stays false).
    var hasEnded: Bool { get }
    /// Raises the link's security (pairing or encryption with a stored key), for the GATT
    /// client's one retry after Insufficient Authentication or Encryption; throws when
    /// the transport cannot, and says what is missing.
    func raiseSecurity() async throws(AttuneError)
    /// Pairs because the application asked (``Peripheral/pair()``), even where automatic
    /// pairing is off; returns once the link is encrypted.
    func pair() async throws(AttuneError)
    /// How the link is secured now: what a server checks attribute permissions against.
    var security: LinkSecurity { get }
    /// Closes the link from our side.
    func close()
    /// Whether the link was already encrypted when the backend handed it out (with a
    /// stored bond); false where the transport does not say.
    var isEncrypted: Bool { get }
}

extension ATTLink {
    /// A transport that keeps what it is given takes its own array.
    package func send(_ pdu: ArraySlice<UInt8>) { send(Array(pdu)) }
    package var isEncrypted: Bool { false }
    package func takeDroppedCount() -> Int { 0 }
    package func recycle(_ batch: inout [LinkEvent]) { batch = [] }
    package func takeDroppedNotifications() -> DroppedNotifications { DroppedNotifications() }
}
