/// ATT_READ_MULTIPLE_VARIABLE_RSP (Vol 3 Part F §3.4.4.12): length–value tuples. The
/// length field gives the full value length; when the response would overflow ATT_MTU the
/// server truncates, so only the last tuple may carry fewer bytes than its length says.
public struct ReadMultipleVariableResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readMultipleVariableResponse

    public struct Entry: Hashable, Sendable {
        /// The full length of the attribute value.
        public var length: UInt16
        /// The bytes present (all of them unless ``isTruncated``).
        public var value: ArraySlice<UInt8>
        public var isTruncated: Bool { value.count < Int(length) }
    }

    public var data: ArraySlice<UInt8>

    public init(data: ArraySlice<UInt8>) { self.data = data }

    /// Builds a response from whole values.
    public init(values: [[UInt8]]) throws(ATTEncodingError) {
        var data: [UInt8] = []
        for v in values {
            guard v.count <= Int(UInt16.max) else { throw .invalidField("value longer than 65535 bytes") }
            appendUInt16(UInt16(v.count), to: &data)
            data.append(contentsOf: v)
        }
        self.data = data[...]
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let body = reader.offset
        let data = reader.readRest()
        var i = data.startIndex
        var count = 0
        while i < data.endIndex {
            guard data.endIndex - i >= 2 else {
                throw ATTDecodingError(.truncated(field: "value length", needed: 2, available: data.endIndex - i),
                                       offset: body + (i - data.startIndex), opcode: reader.opcode)
            }
            let length = Int(UInt16(data[i]) | UInt16(data[i + 1]) << 8)
            i += 2 + length
            count += 1
        }
        guard count >= 1 else {
            throw ATTDecodingError(.tooFewEntries(field: "length value tuple list", count: 0, minimum: 1), offset: body, opcode: reader.opcode)
        }
        self.data = data
    }

    public var parameterLength: Int { data.count }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { buffer.append(contentsOf: data) }

    public var entries: Entries { Entries(data: data) }

    public struct Entries: Sequence, Sendable {
        @usableFromInline let data: ArraySlice<UInt8>
        public func makeIterator() -> Iterator { Iterator(data: data, index: data.startIndex) }

        public struct Iterator: IteratorProtocol {
            @usableFromInline let data: ArraySlice<UInt8>
            @usableFromInline var index: Int
            public mutating func next() -> Entry? {
                guard data.endIndex - index >= 2 else { return nil }
                let length = UInt16(data[index]) | UInt16(data[index + 1]) << 8
                let start = index + 2
                let end = Swift.min(data.endIndex, start + Int(length))
                index = start + Int(length)
                return Entry(length: length, value: data[start..<end])
            }
        }
    }

    public var description: String {
        entries.map { "[\($0.length)] \(hexString($0.value))\($0.isTruncated ? " (truncated)" : "")" }.joined(separator: ", ")
    }
}
