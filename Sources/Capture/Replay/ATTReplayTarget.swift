/// One side of an ATT bearer that replay drives: PDUs from the captured peer go in, the
/// PDUs our engine sends come out. The GATT server and client engines are adapted to it.
public protocol ATTReplayTarget {
    /// Feeds one complete ATT PDU the peer sent at `timestamp` (microseconds since the
    /// Unix epoch, as captured) and returns every PDU the engine sends in reply, in order.
    mutating func receive(_ pdu: ArraySlice<UInt8>, at timestamp: Int64) -> [[UInt8]]
}
