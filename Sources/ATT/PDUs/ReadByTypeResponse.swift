/// ATT_READ_BY_TYPE_RSP (Vol 3 Part F §3.4.4.2): handle–value pairs of one common
/// length, read in place by ``entries`` without allocating.
public struct ReadByTypeResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readByTypeResponse

    public struct Entry: Hashable, Sendable {
        public var handle: AttributeHandle
        public var value: ArraySlice<UInt8>
        @inlinable
        public init(handle: AttributeHandle, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.value = value
        }
    }

    /// The attribute data list; each entry is a handle then the value.
    public var list: FixedLengthList

    /// Bytes per handle–value pair (2 + value length).
    public var length: UInt8 { list.length }
    /// The attribute data list: whole pairs, back to back.
    public var data: ArraySlice<UInt8> { list.data }

    public init(length: UInt8, data: ArraySlice<UInt8>) { list = FixedLengthList(length: length, data: data) }

    /// Builds a response; every value must have the length of the first.
    public init(entries: [Entry]) throws(ATTEncodingError) {
        list = try FixedLengthList.build(entries, entryLength: 2 + (entries.first?.value.count ?? 0), what: "Read By Type Response") {
            appendUInt16($0.handle.rawValue, to: &$1)
            $1.append(contentsOf: $0.value)
            return 2 + $0.value.count
        }
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        list = try FixedLengthList(decoding: &reader, minimumLength: 2, field: "attribute data list") { entry, at, opcode throws(ATTDecodingError) in
            if readUInt16(entry, at: 0) == 0 { throw ATTDecodingError(.zeroHandle(field: "attribute handle"), offset: at, opcode: opcode) }
        }
    }

    public var parameterLength: Int { 1 + list.data.count }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { list.append(to: &buffer) }

    /// The handle–value pairs, decoded lazily.
    @inlinable
    public var entries: LazyMapSequence<FixedLengthList, Entry> {
        list.lazy.map { Entry(handle: AttributeHandle(readUInt16($0, at: 0)), value: $0.dropFirst(2)) }
    }

    public var description: String {
        entries.map { "\($0.handle): \(hexString($0.value))" }.joined(separator: ", ")
    }
}
