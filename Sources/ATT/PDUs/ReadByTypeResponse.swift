/// ATT_READ_BY_TYPE_RSP (Vol 3 Part F §3.4.4.2): handle–value pairs of one common
/// length, read in place by ``entries`` without allocating.
public struct ReadByTypeResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readByTypeResponse

    public struct Entry: Hashable, Sendable {
        public var handle: AttributeHandle
        public var value: ArraySlice<UInt8>
        public init(handle: AttributeHandle, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.value = value
        }
    }

    /// Bytes per handle–value pair (2 + value length).
    public var length: UInt8
    /// The attribute data list: whole pairs, back to back.
    public var data: ArraySlice<UInt8>

    public init(length: UInt8, data: ArraySlice<UInt8>) {
        self.length = length
        self.data = data
    }

    /// Builds a response; every value must have the length of the first.
    public init(entries: [Entry]) throws(ATTEncodingError) {
        guard let first = entries.first else { throw .invalidField("a Read By Type Response needs an entry") }
        let valueLength = first.value.count
        guard valueLength + 2 <= 255 else { throw .invalidField("value of \(valueLength) bytes is too long for the length field") }
        var data: [UInt8] = []
        data.reserveCapacity(entries.count * (valueLength + 2))
        for e in entries {
            guard e.value.count == valueLength else { throw .invalidField("Read By Type Response values differ in length") }
            appendUInt16(e.handle.rawValue, to: &data)
            data.append(contentsOf: e.value)
        }
        self.init(length: UInt8(valueLength + 2), data: data[...])
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let lengthOffset = reader.offset
        let length = try reader.readUInt8("length")
        guard length >= 2 else {
            throw ATTDecodingError(.invalidLength(field: "length", length: Int(length), expected: "at least 2"),
                                   offset: lengthOffset, opcode: reader.opcode)
        }
        let body = reader.offset
        let data = reader.readRest()
        try validateHandleList(data, entryLength: Int(length), field: "attribute data list", bodyOffset: body, opcode: reader.opcode)
        self.length = length
        self.data = data
    }

    public var parameterLength: Int { 1 + data.count }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        buffer.append(length)
        buffer.append(contentsOf: data)
    }

    public var entries: Entries { Entries(data: data, length: Int(length)) }

    public struct Entries: Sequence, Sendable {
        @usableFromInline let data: ArraySlice<UInt8>
        @usableFromInline let length: Int
        public var count: Int { length == 0 ? 0 : data.count / length }
        public func makeIterator() -> Iterator { Iterator(data: data, length: length, index: data.startIndex) }

        public struct Iterator: IteratorProtocol {
            @usableFromInline let data: ArraySlice<UInt8>
            @usableFromInline let length: Int
            @usableFromInline var index: Int
            @inlinable
            public mutating func next() -> Entry? {
                guard length >= 2, index &+ length <= data.endIndex else { return nil }
                let handle = AttributeHandle(UInt16(data[index]) | UInt16(data[index &+ 1]) << 8)
                let value = data[(index &+ 2)..<(index &+ length)]
                index &+= length
                return Entry(handle: handle, value: value)
            }
        }
    }

    public var description: String {
        entries.map { "\($0.handle): \(hexString($0.value))" }.joined(separator: ", ")
    }
    public var fields: [(String, JSONValue)] {
        [("length", .int(Int(length))),
         ("entries", .array(entries.map { .object([("handle", .int(Int($0.handle.rawValue))), ("value", .string(hexString($0.value).replacingEmpty))]) }))]
    }
}

/// Checks a list of fixed-length entries that each start with a handle: whole entries,
/// at least one, and no zero handle.
@inlinable
func validateHandleList(_ data: ArraySlice<UInt8>, entryLength: Int, field: StaticString, bodyOffset: Int, opcode: UInt8?)
    throws(ATTDecodingError)
{
    guard !data.isEmpty else {
        throw ATTDecodingError(.tooFewEntries(field: field.description, count: 0, minimum: 1), offset: bodyOffset, opcode: opcode)
    }
    guard data.count % entryLength == 0 else {
        throw ATTDecodingError(.inconsistentList(field: field.description, entryLength: entryLength, bodyLength: data.count),
                               offset: bodyOffset, opcode: opcode)
    }
    var i = data.startIndex
    while i < data.endIndex {
        if data[i] == 0 && data[i &+ 1] == 0 {
            throw ATTDecodingError(.zeroHandle(field: "attribute handle"), offset: bodyOffset + (i - data.startIndex), opcode: opcode)
        }
        i &+= entryLength
    }
}
