/// The body of a list PDU whose entries all have one length, announced by a one-byte
/// length field (Read By Type and Read By Group Type responses). Entries are read in
/// place, as slices of the input, without allocating.
public struct FixedLengthList: Sequence, Hashable, Sendable {
    /// Bytes per entry.
    public let length: UInt8
    /// Whole entries, back to back.
    public let data: ArraySlice<UInt8>

    @inlinable
    public init(length: UInt8, data: ArraySlice<UInt8>) {
        self.length = length
        self.data = data
    }

    /// Decodes the length byte and the entries that follow it; see
    /// ``init(length:validating:bodyOffset:opcode:field:validate:)``.
    @inlinable
    init(decoding reader: inout ByteReader, minimumLength: UInt8, field: StaticString,
         validate: (ArraySlice<UInt8>, Int, UInt8?) throws(ATTDecodingError) -> Void) throws(ATTDecodingError)
    {
        let lengthOffset = reader.offset
        let length = try reader.readUInt8("length")
        guard length >= minimumLength else {
            throw ATTDecodingError(.invalidLength(field: "length", length: Int(length), expected: "at least \(minimumLength)"),
                                   offset: lengthOffset, opcode: reader.opcode)
        }
        let body = reader.offset
        try self.init(length: length, validating: reader.readRest(), bodyOffset: body, opcode: reader.opcode, field: field, validate: validate)
    }

    /// Checks a list body: at least one entry, no partial entry, and each entry accepted
    /// by `validate`, which gets the entry and its byte offset in the PDU and throws the
    /// error naming the bad field.
    @inlinable
    init(length: UInt8, validating data: ArraySlice<UInt8>, bodyOffset body: Int, opcode: UInt8?, field: StaticString,
         validate: (ArraySlice<UInt8>, Int, UInt8?) throws(ATTDecodingError) -> Void) throws(ATTDecodingError)
    {
        guard !data.isEmpty else {
            throw ATTDecodingError(.tooFewEntries(field: field.description, count: 0, minimum: 1), offset: body, opcode: opcode)
        }
        guard data.count % Int(length) == 0 else {
            throw ATTDecodingError(.inconsistentList(field: field.description, entryLength: Int(length), bodyLength: data.count),
                                   offset: body, opcode: opcode)
        }
        var i = data.startIndex
        while i < data.endIndex {
            try validate(data[i..<(i &+ Int(length))], body &+ (i &- data.startIndex), opcode)
            i &+= Int(length)
        }
        self.init(length: length, data: data)
    }

    /// Builds a list from entries that each write `entryLength` bytes.
    static func build<E>(_ entries: [E], entryLength: Int, what: String,
                         append: (E, inout [UInt8]) -> Int) throws(ATTEncodingError) -> FixedLengthList
    {
        guard !entries.isEmpty else { throw .invalidField("a \(what) needs an entry") }
        guard entryLength <= 255 else { throw .invalidField("\(what) entries of \(entryLength) bytes are too long for the length field") }
        var data: [UInt8] = []
        data.reserveCapacity(entries.count * entryLength)
        for entry in entries {
            guard append(entry, &data) == entryLength else { throw .invalidField("\(what) values differ in length") }
        }
        return FixedLengthList(length: UInt8(entryLength), data: data[...])
    }

    public var count: Int { length == 0 ? 0 : data.count / Int(length) }

    @inlinable
    public func makeIterator() -> Iterator { Iterator(data: data, length: Int(length), index: data.startIndex) }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let data: ArraySlice<UInt8>
        @usableFromInline let length: Int
        @usableFromInline var index: Int

        @inlinable
        init(data: ArraySlice<UInt8>, length: Int, index: Int) {
            self.data = data
            self.length = length
            self.index = index
        }

        @inlinable
        public mutating func next() -> ArraySlice<UInt8>? {
            guard length > 0, index &+ length <= data.endIndex else { return nil }
            defer { index &+= length }
            return data[index..<(index &+ length)]
        }
    }

    @inlinable
    func append(to buffer: inout [UInt8]) {
        buffer.append(length)
        buffer.append(contentsOf: data)
    }
}

@inlinable
func readUInt16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16 {
    let i = bytes.startIndex &+ offset
    return UInt16(bytes[i]) | UInt16(bytes[i &+ 1]) << 8
}
