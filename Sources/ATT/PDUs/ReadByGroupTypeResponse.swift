/// ATT_READ_BY_GROUP_TYPE_RSP (Vol 3 Part F §3.4.4.10): (handle, end group handle,
/// value) entries of one common length, read in place by ``entries``.
public struct ReadByGroupTypeResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    public struct Entry: Hashable, Sendable {
        public var handle: AttributeHandle
        public var endGroupHandle: AttributeHandle
        public var value: ArraySlice<UInt8>
        public init(handle: AttributeHandle, endGroupHandle: AttributeHandle, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
    }

    /// Bytes per entry (4 + value length).
    public var length: UInt8
    public var data: ArraySlice<UInt8>

    public init(length: UInt8, data: ArraySlice<UInt8>) {
        self.length = length
        self.data = data
    }

    /// Builds a response; every value must have the length of the first.
    public init(entries: [Entry]) throws(ATTEncodingError) {
        guard let first = entries.first else { throw .invalidField("a Read By Group Type Response needs an entry") }
        let valueLength = first.value.count
        guard valueLength + 4 <= 255 else { throw .invalidField("value of \(valueLength) bytes is too long for the length field") }
        var data: [UInt8] = []
        data.reserveCapacity(entries.count * (valueLength + 4))
        for e in entries {
            guard e.value.count == valueLength else { throw .invalidField("Read By Group Type Response values differ in length") }
            appendUInt16(e.handle.rawValue, to: &data)
            appendUInt16(e.endGroupHandle.rawValue, to: &data)
            data.append(contentsOf: e.value)
        }
        self.init(length: UInt8(valueLength + 4), data: data[...])
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let lengthOffset = reader.offset
        let length = try reader.readUInt8("length")
        guard length >= 4 else {
            throw ATTDecodingError(.invalidLength(field: "length", length: Int(length), expected: "at least 4"),
                                   offset: lengthOffset, opcode: reader.opcode)
        }
        let body = reader.offset
        let data = reader.readRest()
        try validateHandlePairs(data, entryLength: Int(length), field: "attribute data list", bodyOffset: body, opcode: reader.opcode)
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
                guard length >= 4, index &+ length <= data.endIndex else { return nil }
                let handle = AttributeHandle(UInt16(data[index]) | UInt16(data[index &+ 1]) << 8)
                let end = AttributeHandle(UInt16(data[index &+ 2]) | UInt16(data[index &+ 3]) << 8)
                let value = data[(index &+ 4)..<(index &+ length)]
                index &+= length
                return Entry(handle: handle, endGroupHandle: end, value: value)
            }
        }
    }

    public var description: String {
        entries.map { e in
            let v = BluetoothUUID(littleEndian: e.value).map(describeUUID) ?? hexString(e.value)
            return "\(e.handle)..\(e.endGroupHandle) \(v)"
        }.joined(separator: ", ")
    }
    public var fields: [(String, JSONValue)] {
        [("length", .int(Int(length))),
         ("entries", .array(entries.map {
             .object([("handle", .int(Int($0.handle.rawValue))), ("end_group_handle", .int(Int($0.endGroupHandle.rawValue))),
                      ("value", .string(hexString($0.value).replacingEmpty))])
         }))]
    }
}
