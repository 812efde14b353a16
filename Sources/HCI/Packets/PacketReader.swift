import BluetoothCore

/// BluetoothCore's ``ByteReader`` with errors that name HCI structures: a
/// little-endian cursor over borrowed bytes whose reads never trap, and whose failures
/// become ``HCIDecodingError``s carrying the structure, field and byte offset.
@usableFromInline
struct PacketReader {
    @usableFromInline var reader: ByteReader
    @usableFromInline let structure: StaticString

    @inlinable
    init(_ bytes: ArraySlice<UInt8>, structure: StaticString) {
        reader = ByteReader(bytes)
        self.structure = structure
    }

    @inlinable var offset: Int { reader.offset }
    @inlinable var remaining: Int { reader.remaining }

    @inlinable
    func error(_ reason: HCIDecodingError.Reason, at position: Int? = nil) -> HCIDecodingError {
        HCIDecodingError(reason, in: structure.description, offset: position ?? offset)
    }

    /// Restates a ByteReader failure in HCI terms.
    @inlinable
    func translate(_ e: ATTDecodingError) -> HCIDecodingError {
        switch e.reason {
        case let .truncated(field, needed, available):
            return error(.truncated(field: field, needed: needed, available: available), at: e.offset)
        default:
            return error(.invalidValue(field: e.description, value: 0), at: e.offset)
        }
    }

    @inlinable
    func need(_ count: Int, _ field: StaticString) throws(HCIDecodingError) {
        guard remaining >= count else {
            throw error(.truncated(field: field.description, needed: count, available: max(0, remaining)))
        }
    }

    @inlinable
    mutating func uint8(_ field: StaticString) throws(HCIDecodingError) -> UInt8 {
        do { return try reader.readUInt8(field) } catch { throw translate(error) }
    }

    @inlinable
    mutating func int8(_ field: StaticString) throws(HCIDecodingError) -> Int8 {
        Int8(bitPattern: try uint8(field))
    }

    @inlinable
    mutating func uint16(_ field: StaticString) throws(HCIDecodingError) -> UInt16 {
        do { return try reader.readUInt16(field) } catch { throw translate(error) }
    }

    @inlinable
    mutating func slice(_ count: Int, _ field: StaticString) throws(HCIDecodingError) -> ArraySlice<UInt8> {
        do { return try reader.readSlice(count, field: field) } catch { throw translate(error) }
    }

    @inlinable
    mutating func address(_ field: StaticString) throws(HCIDecodingError) -> BluetoothAddress {
        let wire = try slice(6, field)
        guard let address = BluetoothAddress(littleEndian: wire) else {
            throw error(.truncated(field: field.description, needed: 6, available: wire.count))
        }
        return address
    }

    @inlinable
    mutating func rest() -> ArraySlice<UInt8> { reader.readRest() }
}
