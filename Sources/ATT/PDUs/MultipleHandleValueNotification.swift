/// ATT_MULTIPLE_HANDLE_VALUE_NTF (Vol 3 Part F §3.4.7.4): handle–length–value tuples,
/// each complete.
public struct MultipleHandleValueNotification: ATTPDUBody {
    public static let opcode = ATTOpcode.multipleHandleValueNotification

    public struct Entry: Hashable, Sendable {
        public var handle: AttributeHandle
        public var value: ArraySlice<UInt8>
        public init(handle: AttributeHandle, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.value = value
        }
    }

    public var data: ArraySlice<UInt8>

    public init(data: ArraySlice<UInt8>) { self.data = data }

    public init(entries: [Entry]) throws(ATTEncodingError) {
        var data: [UInt8] = []
        for e in entries {
            guard e.value.count <= Int(UInt16.max) else { throw .invalidField("value longer than 65535 bytes") }
            appendUInt16(e.handle.rawValue, to: &data)
            appendUInt16(UInt16(e.value.count), to: &data)
            data.append(contentsOf: e.value)
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
            let at = body + (i - data.startIndex)
            guard data.endIndex - i >= 4 else {
                throw ATTDecodingError(.truncated(field: "handle length value tuple", needed: 4, available: data.endIndex - i),
                                       offset: at, opcode: reader.opcode)
            }
            if data[i] == 0 && data[i + 1] == 0 {
                throw ATTDecodingError(.zeroHandle(field: "attribute handle"), offset: at, opcode: reader.opcode)
            }
            let length = Int(UInt16(data[i + 2]) | UInt16(data[i + 3]) << 8)
            guard data.endIndex - (i + 4) >= length else {
                throw ATTDecodingError(.truncated(field: "attribute value", needed: length, available: data.endIndex - (i + 4)),
                                       offset: at + 4, opcode: reader.opcode)
            }
            i += 4 + length
            count += 1
        }
        guard count >= 1 else {
            throw ATTDecodingError(.tooFewEntries(field: "handle length value tuple list", count: 0, minimum: 1), offset: body, opcode: reader.opcode)
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
                guard data.endIndex - index >= 4 else { return nil }
                let handle = AttributeHandle(UInt16(data[index]) | UInt16(data[index + 1]) << 8)
                let length = Int(UInt16(data[index + 2]) | UInt16(data[index + 3]) << 8)
                let start = index + 4
                let end = Swift.min(data.endIndex, start + length)
                index = start + length
                return Entry(handle: handle, value: data[start..<end])
            }
        }
    }

    public var description: String {
        entries.map { "\($0.handle): \(hexString($0.value))" }.joined(separator: ", ")
    }
}
