/// What ``ATTClientPDU`` and ``ATTServerPDU`` share: the PDUs of one side, narrowed
/// from what ``ATTReceivedPDU`` decoded and widened to ``ATTPDU`` to be encoded and shown.
/// Written once here so the two directions differ only in their cases.
public protocol ATTDirectedPDU: Hashable, Sendable, CustomStringConvertible {
    /// This side's PDU in `direction`; nil when the other side sends it.
    static func narrowed(_ direction: ATTPDUDirection) -> Self?
    /// The same PDU as an ``ATTPDU``, for code that treats both directions alike.
    var pdu: ATTPDU { get }
}

extension ATTDirectedPDU {
    /// The PDU, when this side sends it; nil for what only the other side sends.
    @inlinable
    public init?(_ pdu: ATTPDU) {
        guard let narrowed = Self.narrowed(pdu.direction) else { return nil }
        self = narrowed
    }

    /// Decodes one complete PDU that this side sends. A PDU only the other side sends is
    /// rejected as ``ATTDecodingError/Reason/unknownOpcode``: it is none this side's
    /// receiver knows.
    @inlinable
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(ATTDecodingError) -> Self {
        guard let pdu = narrowed(try ATTReceivedPDU(decoding: bytes).decoded()) else {
            throw ATTDecodingError(.unknownOpcode, offset: 0, opcode: bytes.first)
        }
        return pdu
    }

    /// Decodes one complete PDU that this side sends, from an array.
    @inlinable
    public static func decode(_ bytes: [UInt8]) throws(ATTDecodingError) -> Self { try decode(bytes[...]) }

    public var opcode: ATTOpcode { pdu.opcode }

    /// Appends the whole PDU to `buffer`; fails rather than exceed `mtu`.
    @inlinable
    public func encode(into buffer: inout [UInt8], mtu: Int = Int.max) throws(ATTEncodingError) {
        try pdu.encode(into: &buffer, mtu: mtu)
    }

    public var description: String { pdu.description }
}
