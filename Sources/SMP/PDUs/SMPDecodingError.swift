/// Why bytes are not an SMP PDU, and where they stop being one.
public struct SMPDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// No code octet at all.
        case empty
        /// A code this implementation does not know (answered with Command Not Supported).
        case unknownCode(UInt8)
        /// The PDU is not exactly the length its code requires (answered with Invalid Parameters).
        case wrongLength(code: UInt8, expected: Int, actual: Int)
    }

    public let reason: Reason
    /// The byte offset at which decoding failed, from the code octet.
    public let offset: Int

    public init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        switch reason {
        case .empty: return "empty SMP PDU"
        case .unknownCode(let code): return "unknown SMP code 0x\(String(code, radix: 16)) at offset \(offset)"
        case .wrongLength(let code, let expected, let actual):
            return "SMP code 0x\(String(code, radix: 16)) needs \(expected) bytes, got \(actual) (offset \(offset))"
        }
    }
}
