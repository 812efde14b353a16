import HCI

/// The ATT fixed channel (CID 0x0004) of one connection of a ``UserlandHost``: whole PDUs
/// in both directions, for a GATT client or server engine to own.
///
/// Exists from the moment the connection comes up (PDUs that arrive before anyone asks
/// for the channel wait in ``events``), when the host routes ATT to channels.
public final class UserlandATTChannel: Sendable {
    /// What the channel reports.
    public enum Event: Sendable, Hashable {
        /// One ATT PDU from the peer.
        case received([UInt8])
        /// The link went down with this HCI reason.
        case disconnected(HCIStatus)
        /// The host stopped (stream closed, controller failed): the link's fate is unknown.
        case ended(HostError)
    }

    public let connection: ConnectionInfo
    /// Received PDUs, then one closing event. For exactly one consumer.
    public let events: AsyncStream<Event>
    private let host: UserlandHost

    init(connection: ConnectionInfo, events: AsyncStream<Event>, host: UserlandHost) {
        self.connection = connection
        self.events = events
        self.host = host
    }

    /// Queues one PDU; never blocks. Fragmentation and ACL flow control happen in the host;
    /// after the link closes, PDUs are dropped.
    public func send(_ pdu: [UInt8]) {
        host.enqueueL2CAP(handle: connection.handle, channel: .attribute, payload: pdu)
    }

    /// True when nothing of this connection waits for controller buffers, so a new PDU
    /// leaves at once; Write Without Response and notifications should wait for it.
    public var canSend: Bool { host.canSend(on: connection.handle) }

    /// Returns once ``canSend`` is true, or the link is gone.
    public func sendReady() async { await host.sendReady(on: connection.handle) }

    /// Disconnects the link (reason 0x13, remote user terminated connection).
    public func close() {
        host.requestDisconnect(handle: connection.handle)
    }
}
