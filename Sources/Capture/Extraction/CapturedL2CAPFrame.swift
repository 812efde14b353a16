import HCI

/// A complete L2CAP basic frame reassembled from a capture.
public struct CapturedL2CAPFrame: Hashable, Sendable {
    /// The record that completed the frame.
    public var recordIndex: Int
    public var byteOffset: Int64
    /// Microseconds since the Unix epoch, of the completing record.
    public var timestamp: Int64
    public var controller: UInt16
    public var direction: CaptureDirection
    public var connectionHandle: UInt16
    public var channel: L2CAPChannelID
    /// The information payload (an ATT PDU on channel 0x0004).
    public var payload: ArraySlice<UInt8>
    /// What the capture said about the connection, if it showed the connection being made.
    public var connection: CapturedConnection?
}
