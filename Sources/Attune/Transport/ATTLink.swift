/// The ATT channel (fixed CID 4) of one connected LE link: whole PDUs in both directions.
///
/// This is the narrow edge every transport implements: the kernel's L2CAP socket, the
/// userland host's fixed channel, or a ``MemoryRadio`` pipe. The engines above it never
/// see sockets or HCI.
protocol ATTLink: AnyObject, Sendable {
    var peerAddress: BluetoothAddress { get }
    var peerAddressType: BluetoothAddressType { get }
    /// Received PDUs, then one `.closed`. Read by exactly one consumer.
    var events: AsyncStream<LinkEvent> { get }
    /// Queues one PDU; never blocks. Dropped once the link is closed.
    func send(_ pdu: [UInt8])
    /// Whether the transport has room for another PDU right now (socket buffer, ACL
    /// credits); write-without-response and notifications wait for this.
    var canSend: Bool { get }
    /// Returns once ``canSend`` is true or the link closed.
    func sendReady() async
    /// The consumer finished with one received PDU (flow control for in-memory links).
    func consumed()
    /// Closes the link from our side.
    func close()
}
