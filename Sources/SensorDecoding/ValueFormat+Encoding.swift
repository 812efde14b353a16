import BluetoothCore

/// A payload (a gateway's `/set` message) as the bytes of a characteristic value: the
/// format read backwards. Hostile payloads (MQTT from anyone) get a ``Refusal``, never a trap.
public enum ValueEncoding {
    /// Why a payload cannot be written in a format.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// A number for the integer and float formats (little endian, range-checked), the
    /// payload itself for `utf8`, hex text (up to 512 bytes) for `hex` and every other format.
    public static func bytes(_ payload: [UInt8], format: ValueFormat) throws(Refusal) -> [UInt8] {
        let text = String(decoding: payload, as: UTF8.self).trimmingWhitespace
        switch format {
        case .utf8:
            return payload
        case .u8: return try integer(text, bits: 8, signed: false)
        case .u16le: return try integer(text, bits: 16, signed: false)
        case .s16le: return try integer(text, bits: 16, signed: true)
        case .u32le: return try integer(text, bits: 32, signed: false)
        case .s32le: return try integer(text, bits: 32, signed: true)
        case .float32le:
            guard let value = Float(text), value.isFinite else { throw Refusal(description: "not a number: \(text.prefix(40))") }
            return withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init)
        default:
            return try hex(text)
        }
    }

    static func integer(_ text: String, bits: Int, signed: Bool) throws(Refusal) -> [UInt8] {
        guard let value = Int64(text) else { throw Refusal(description: "not an integer: \(text.prefix(40))") }
        let range: ClosedRange<Int64> = signed ? -(Int64(1) << (bits - 1))...((Int64(1) << (bits - 1)) - 1)
                                               : 0...((Int64(1) << bits) - 1)
        guard range.contains(value) else { throw Refusal(description: "\(value) is outside \(range)") }
        let raw = UInt64(bitPattern: value)
        return (0..<(bits / 8)).map { UInt8(truncatingIfNeeded: raw >> (8 * UInt64($0))) }
    }

    static func hex(_ text: String) throws(Refusal) -> [UInt8] {
        guard let out = parseHex(text, separators: " \t\n\r:"), out.count <= 512 else {
            throw Refusal(description: "not hex bytes: \(text.prefix(40))")
        }
        return out
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
