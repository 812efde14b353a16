/// A little-endian cursor over borrowed bytes for HCI structures. Reads never trap:
/// running past the end throws an ``HCIDecodingError`` naming the field and offset.
///
/// HCI errors name HCI structures, so this stays separate from the ATT `ByteReader`,
/// whose errors name ATT opcodes.
@usableFromInline
struct PacketReader {
    @usableFromInline let bytes: ArraySlice<UInt8>
    @usableFromInline var offset: Int
    @usableFromInline let structure: StaticString

    @inlinable
    init(_ bytes: ArraySlice<UInt8>, structure: StaticString) {
        self.bytes = bytes
        self.offset = 0
        self.structure = structure
    }

    @inlinable var remaining: Int { bytes.count &- offset }

    @inlinable
    func error(_ reason: HCIDecodingError.Reason, at position: Int? = nil) -> HCIDecodingError {
        HCIDecodingError(reason, in: structure.description, offset: position ?? offset)
    }

    @inlinable
    func need(_ count: Int, _ field: StaticString) throws(HCIDecodingError) {
        guard remaining >= count else {
            throw error(.truncated(field: field.description, needed: count, available: max(0, remaining)))
        }
    }

    @inlinable
    mutating func uint8(_ field: StaticString) throws(HCIDecodingError) -> UInt8 {
        try need(1, field)
        defer { offset &+= 1 }
        return bytes[bytes.startIndex &+ offset]
    }

    @inlinable
    mutating func int8(_ field: StaticString) throws(HCIDecodingError) -> Int8 {
        Int8(bitPattern: try uint8(field))
    }

    @inlinable
    mutating func uint16(_ field: StaticString) throws(HCIDecodingError) -> UInt16 {
        try need(2, field)
        let base = bytes.startIndex &+ offset
        offset &+= 2
        return UInt16(bytes[base]) | UInt16(bytes[base &+ 1]) &<< 8
    }

    @inlinable
    mutating func slice(_ count: Int, _ field: StaticString) throws(HCIDecodingError) -> ArraySlice<UInt8> {
        try need(count, field)
        let start = bytes.startIndex &+ offset
        offset &+= count
        return bytes[start..<(start &+ count)]
    }

    @inlinable
    mutating func address(_ field: StaticString) throws(HCIDecodingError) -> BluetoothAddress {
        BluetoothAddress(littleEndian: try slice(6, field))!
    }

    @inlinable
    mutating func rest() -> ArraySlice<UInt8> {
        let start = bytes.startIndex &+ min(offset, bytes.count)
        offset = bytes.count
        return bytes[start..<bytes.endIndex]
    }
}
