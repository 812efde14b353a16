/// What ``ATTClientPDU`` and ``ATTServerPDU`` share: the PDUs of one side, narrowed
/// from what ``ATTReceivedPDU`` decoded and widened to ``ATTPDU`` to be encoded and shown.
/// Written once here, with the one mapping to and from ``ATTPDU`` in ``ATTPDUDirection``,
/// so the two directions differ only in their cases.
public protocol ATTDirectedPDU: Hashable, Sendable, CustomStringConvertible {
    /// The PDU with the side that sends it.
    var direction: ATTPDUDirection { get }
}

extension ATTDirectedPDU {
    /// This side's PDU in `direction`; nil when the other side sends it. Once for both
    /// sides: specialized, each cast is known to succeed or fail at compile time.
    @inlinable
    public static func narrowed(_ direction: ATTPDUDirection) -> Self? {
        switch direction {
        case .clientToServer(let p): p as? Self
        case .serverToClient(let p): p as? Self
        }
    }

    /// The same PDU as an ``ATTPDU``, for code that treats both directions alike.
    @inlinable
    public var pdu: ATTPDU { ATTPDU(direction) }

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

extension ATTPDU {
    /// Widens a PDU of one side to the type of all PDUs.
    @inlinable
    public init<P: ATTDirectedPDU>(_ pdu: P) { self.init(pdu.direction) }
}
