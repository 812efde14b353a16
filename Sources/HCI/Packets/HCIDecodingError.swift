/// Why bytes are not a valid HCI packet (or L2CAP header, or advertising data), and where.
///
/// `offset` counts from the first byte of the bytes handed to the decoder.
public struct HCIDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// A field ran past the end of the input.
        case truncated(field: String, needed: Int, available: Int)
        /// A length field disagrees with the number of bytes present.
        case lengthMismatch(field: String, declared: Int, actual: Int)
        /// A field holds a value the spec does not allow here.
        case invalidValue(field: String, value: Int)
    }

    /// The structure being decoded, e.g. "LE Connection Complete".
    public var structure: String
    public var reason: Reason
    public var offset: Int

    public init(_ reason: Reason, in structure: String, offset: Int) {
        self.reason = reason
        self.structure = structure
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case let .truncated(field, needed, available):
            what = "truncated \(field): needs \(needed) byte\(needed == 1 ? "" : "s"), \(available) left"
        case let .lengthMismatch(field, declared, actual):
            what = "\(field) declares \(declared) bytes but \(actual) are present"
        case let .invalidValue(field, value):
            what = "invalid \(field) 0x\(String(value, radix: 16))"
        }
        return "\(structure): \(what) at byte offset \(offset)"
    }
}
