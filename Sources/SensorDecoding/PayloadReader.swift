/// A cursor over peer bytes whose reads never trap: running past the end throws a
/// ``SensorDecodingError`` naming the field and its offset.
struct PayloadReader {
    let bytes: ArraySlice<UInt8>
    /// Added to every reported offset, when these bytes sit inside a larger value.
    let base: Int
    private(set) var offset = 0

    init(_ bytes: ArraySlice<UInt8>, base: Int = 0) {
        self.bytes = bytes
        self.base = base
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { remaining <= 0 }
    /// The absolute offset of the next byte, for errors.
    var position: Int { base + offset }

    func failure(_ reason: SensorDecodingError.Reason, at offset: Int? = nil) -> SensorDecodingError {
        SensorDecodingError(reason, offset: offset ?? position)
    }

    mutating func slice(_ count: Int, _ field: String) throws(SensorDecodingError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else {
            throw failure(.truncated(field: field, needed: count, available: max(0, remaining)))
        }
        let start = bytes.startIndex + offset
        offset += count
        return bytes[start..<(start + count)]
    }

    mutating func u8(_ field: String) throws(SensorDecodingError) -> UInt8 {
        try slice(1, field).first ?? 0
    }

    /// An unsigned little-endian integer of 1 to 8 bytes.
    mutating func uintLE(_ count: Int, _ field: String) throws(SensorDecodingError) -> UInt64 {
        var value: UInt64 = 0
        for (i, b) in try slice(min(count, 8), field).enumerated() { value |= UInt64(b) << (8 * UInt64(i)) }
        return value
    }

    /// An unsigned big-endian integer of 1 to 8 bytes (Eddystone and iBeacon fields).
    mutating func uintBE(_ count: Int, _ field: String) throws(SensorDecodingError) -> UInt64 {
        var value: UInt64 = 0
        for b in try slice(min(count, 8), field) { value = value << 8 | UInt64(b) }
        return value
    }

    /// Everything not yet read.
    mutating func rest() -> ArraySlice<UInt8> {
        let start = bytes.startIndex + min(offset, bytes.count)
        offset = bytes.count
        return bytes[start...]
    }

    func expectEnd() throws(SensorDecodingError) {
        if remaining > 0 { throw failure(.trailingBytes(count: remaining)) }
    }
}

/// The two's-complement value of the low `bytes` × 8 bits of `raw`.
func signExtend(_ raw: UInt64, bytes: Int) -> Int64 {
    let bits = UInt64(max(1, min(bytes, 8)) * 8)
    if bits == 64 { return Int64(bitPattern: raw) }
    let sign: UInt64 = 1 << (bits - 1)
    let masked = raw & ((1 << bits) - 1)
    return masked & sign != 0 ? Int64(bitPattern: masked | ~((1 << bits) - 1)) : Int64(bitPattern: masked)
}

/// Decodes UTF-8, reporting the offset of the first invalid byte.
func decodeUTF8(_ bytes: ArraySlice<UInt8>, field: String, base: Int) throws(SensorDecodingError) -> String {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var consumed = 0
    loop: while true {
        switch parser.parseScalar(from: &iterator) {
        case let .valid(scalar): consumed += scalar.count
        case .emptyInput: break loop
        case .error: throw SensorDecodingError(.invalidUTF8(field: field), offset: base + consumed)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
