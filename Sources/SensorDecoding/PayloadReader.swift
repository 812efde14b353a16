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
