import ATT

/// An ATT PDU found in a capture: the L2CAP frame that carried it and its decoding by the
/// shared ATT codec.
public struct CapturedATTPDU: Sendable {
    public var frame: CapturedL2CAPFrame
    /// The decoded PDU, or why the frame's bytes are not a valid one.
    public var pdu: Result<ATTPDU, ATTDecodingError>

    package init(frame: CapturedL2CAPFrame, pdu: Result<ATTPDU, ATTDecodingError>) {
        self.frame = frame
        self.pdu = pdu
    }

    /// The raw PDU bytes (opcode first).
    public var bytes: ArraySlice<UInt8> { frame.payload }
    /// The opcode byte; nil for an empty frame.
    public var opcode: UInt8? { frame.payload.first }
}
