/// Why a byte sequence is not a valid ATT PDU, and where.
///
/// `offset` counts from the first byte of the PDU (the opcode is offset 0).
public struct ATTDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// No bytes at all.
        case empty
        /// The opcode is not defined by Vol 3 Part F §3.4.
        case unknownOpcode
        /// A field ran past the end of the input.
        case truncated(field: String, needed: Int, available: Int)
        /// Bytes remain after the last field of a fixed-layout PDU.
        case trailingBytes(count: Int)
        /// A length field, or the length left for a field, is not one the spec allows.
        case invalidLength(field: String, length: Int, expected: String)
        /// A field holds a reserved or undefined value.
        case invalidValue(field: String, value: Int)
        /// Handle 0x0000 where the spec requires a real attribute handle.
        case zeroHandle(field: String)
        /// An end handle below its start handle.
        case invalidHandleRange(start: UInt16, end: UInt16)
        /// A list PDU whose body does not divide into whole entries.
        case inconsistentList(field: String, entryLength: Int, bodyLength: Int)
        /// A list PDU that must carry at least `minimum` entries.
        case tooFewEntries(field: String, count: Int, minimum: Int)
    }

    public var reason: Reason
    public var offset: Int
    /// The opcode of the PDU being decoded, when it was known.
    public var opcode: UInt8?

    @inlinable
    public init(_ reason: Reason, offset: Int, opcode: UInt8? = nil) {
        self.reason = reason
        self.offset = offset
        self.opcode = opcode
    }

    public var description: String {
        let what: String
        switch reason {
        case .empty:
            what = "empty PDU"
        case .unknownOpcode:
            what = "unknown opcode"
        case let .truncated(field, needed, available):
            what = "truncated \(field): needs \(needed) byte\(needed == 1 ? "" : "s"), \(available) left"
        case let .trailingBytes(count):
            what = "\(count) unexpected trailing byte\(count == 1 ? "" : "s")"
        case let .invalidLength(field, length, expected):
            // A field that is itself a length ("length") is not called "length length".
            let name = field.hasSuffix("length") ? field : field + " length"
            what = "invalid \(name) \(length) (expected \(expected))"
        case let .invalidValue(field, value):
            what = "invalid \(field) 0x\(String(value, radix: 16))"
        case let .zeroHandle(field):
            what = "\(field) is the reserved handle 0x0000"
        case let .invalidHandleRange(start, end):
            what = "end handle \(AttributeHandle(end)) is below start handle \(AttributeHandle(start))"
        case let .inconsistentList(field, entryLength, bodyLength):
            what = "\(field) of \(bodyLength) bytes is not a whole number of \(entryLength)-byte entries"
        case let .tooFewEntries(field, count, minimum):
            what = "\(field) has \(count) entr\(count == 1 ? "y" : "ies"), needs at least \(minimum)"
        }
        // An unknown opcode has no name to give ("in Unknown Opcode 0xff" would repeat it).
        let pdu = opcode.map { reason == .unknownOpcode ? " 0x\(hexString($0, digits: 2))" : " in \(ATTOpcode(rawValue: $0).name) (0x\(hexString($0, digits: 2)))" } ?? ""
        return "\(what)\(pdu) at byte offset \(offset)"
    }
}
