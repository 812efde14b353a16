import HCI

/// What ``CaptureDecoder`` makes of a record.
public enum CaptureEvent: Sendable {
    /// A complete L2CAP frame on any channel.
    case frame(CapturedL2CAPFrame)
    /// LE Connection Complete (success) named a new connection.
    case connected(CapturedConnection)
    /// Disconnection Complete; the connection, if it was known.
    case disconnected(controller: UInt16, handle: UInt16, reason: HCIStatus, connection: CapturedConnection?)
    /// ACL fragments were discarded.
    case dropped(recordIndex: Int, controller: UInt16, handle: UInt16, direction: CaptureDirection,
                 reason: ACLReassembler<CaptureStreamKey>.Drop)
    /// An HCI packet, or a reassembled L2CAP frame, did not decode.
    case malformed(recordIndex: Int, error: HCIDecodingError)
}

/// The reassembly stream of a capture record beyond its connection handle: captures of
/// several controllers reuse handles, and each direction is fragmented on its own.
public struct CaptureStreamKey: Hashable, Sendable {
    public var controller: UInt16
    public var direction: CaptureDirection
}
