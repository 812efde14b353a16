/// A cursor over borrowed bytes. Reads never trap: running past the end throws an
/// ``ATTDecodingError`` that names the field and the byte offset.
///
/// The reader keeps the slice it was given, so payloads handed out by ``readSlice(_:field:)``
/// and ``readRest()`` share storage with the input (no copies).
public struct ByteReader: Sendable {
    /// The bytes being read.
    public let bytes: ArraySlice<UInt8>
    /// Offset of the next byte to read, counted from the start of ``bytes``.
    @inlinable public var offset: Int { _offset }
    @usableFromInline var _offset: Int
    /// The opcode to report in errors, when the bytes are an ATT PDU.
    public var opcode: UInt8?

    @inlinable
    public init(_ bytes: ArraySlice<UInt8>, opcode: UInt8? = nil) {
        self.bytes = bytes
        self._offset = 0
        self.opcode = opcode
    }

    /// Bytes not yet read.
    @inlinable
    public var remaining: Int { bytes.count &- offset }

    @inlinable
    public var isAtEnd: Bool { offset >= bytes.count }

    @inlinable
    func failure(_ reason: ATTDecodingError.Reason, at position: Int? = nil) -> ATTDecodingError {
        ATTDecodingError(reason, offset: position ?? offset, opcode: opcode)
    }

    @inlinable
    mutating func need(_ count: Int, _ field: StaticString) throws(ATTDecodingError) {
        guard remaining >= count else {
            throw failure(.truncated(field: field.description, needed: count, available: max(0, remaining)))
        }
    }

    @inlinable
    public mutating func readUInt8(_ field: StaticString) throws(ATTDecodingError) -> UInt8 {
        try need(1, field)
        let value = bytes[bytes.startIndex &+ offset]
        _offset &+= 1
        return value
    }

    @inlinable
    public mutating func readUInt16(_ field: StaticString) throws(ATTDecodingError) -> UInt16 {
        try need(2, field)
        let base = bytes.startIndex &+ offset
        let value = UInt16(bytes[base]) | UInt16(bytes[base &+ 1]) &<< 8
        _offset &+= 2
        return value
    }

    @inlinable
    public mutating func readUInt32(_ field: StaticString) throws(ATTDecodingError) -> UInt32 {
        try need(4, field)
        let base = bytes.startIndex &+ offset
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[base &+ i]) &<< (8 &* UInt32(i)) }
        _offset &+= 4
        return value
    }

    /// Reads a non-zero attribute handle; zero is reserved by Vol 3 Part F §3.2.2.
    @inlinable
    public mutating func readNonZeroHandle(_ field: StaticString) throws(ATTDecodingError) -> AttributeHandle {
        let position = offset
        let raw = try readUInt16(field)
        guard raw != 0 else { throw failure(.zeroHandle(field: field.description), at: position) }
        return AttributeHandle(raw)
    }

    @inlinable
    public mutating func readHandle(_ field: StaticString) throws(ATTDecodingError) -> AttributeHandle {
        AttributeHandle(try readUInt16(field))
    }

    @inlinable
    public mutating func readSlice(_ count: Int, field: StaticString) throws(ATTDecodingError) -> ArraySlice<UInt8> {
        try need(count, field)
        let start = bytes.startIndex &+ offset
        _offset &+= count
        return bytes[start..<(start &+ count)]
    }

    /// Everything not yet read (possibly empty).
    @inlinable
    public mutating func readRest() -> ArraySlice<UInt8> {
        let start = bytes.startIndex &+ Swift.min(offset, bytes.count)
        _offset = bytes.count
        return bytes[start..<bytes.endIndex]
    }

    /// Reads a UUID whose width is given by the bytes left (2 or 16), as in Read By Type.
    @inlinable
    public mutating func readUUID(width: Int, _ field: StaticString) throws(ATTDecodingError) -> BluetoothUUID {
        let position = offset
        let raw = try readSlice(width, field: field)
        guard let uuid = BluetoothUUID(littleEndian: raw) else {
            throw failure(.invalidLength(field: field.description, length: width, expected: "2 or 16"), at: position)
        }
        return uuid
    }

    /// Fails when bytes are left over: ATT PDUs have exact lengths.
    @inlinable
    public func expectEnd() throws(ATTDecodingError) {
        if remaining > 0 { throw failure(.trailingBytes(count: remaining)) }
    }
}
