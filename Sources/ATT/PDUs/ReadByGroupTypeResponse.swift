/// ATT_READ_BY_GROUP_TYPE_RSP (Vol 3 Part F §3.4.4.10): (handle, end group handle,
/// value) entries of one common length, read in place by ``entries``.
public struct ReadByGroupTypeResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    public struct Entry: Hashable, Sendable {
        public var handle: AttributeHandle
        public var endGroupHandle: AttributeHandle
        public var value: ArraySlice<UInt8>
        @inlinable
        public init(handle: AttributeHandle, endGroupHandle: AttributeHandle, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
    }

    /// The attribute data list; each entry is a handle, an end group handle, then the value.
    public var list: FixedLengthList

    /// Bytes per entry (4 + value length).
    public var length: UInt8 { list.length }
    public var data: ArraySlice<UInt8> { list.data }

    public init(length: UInt8, data: ArraySlice<UInt8>) { list = FixedLengthList(length: length, data: data) }

    /// Builds a response; every value must have the length of the first.
    public init(entries: [Entry]) throws(ATTEncodingError) {
        list = try FixedLengthList.build(entries, entryLength: 4 + (entries.first?.value.count ?? 0), what: "Read By Group Type Response") {
            appendUInt16($0.handle.rawValue, to: &$1)
            appendUInt16($0.endGroupHandle.rawValue, to: &$1)
            $1.append(contentsOf: $0.value)
            return 4 + $0.value.count
        }
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        list = try FixedLengthList(decoding: &reader, minimumLength: 4, field: "attribute data list", validate: validateHandlePair)
    }

    public var parameterLength: Int { 1 + list.data.count }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { list.append(to: &buffer) }

    /// The entries, decoded lazily.
    @inlinable
    public var entries: LazyMapSequence<FixedLengthList, Entry> {
        list.lazy.map {
            Entry(handle: AttributeHandle(readUInt16($0, at: 0)), endGroupHandle: AttributeHandle(readUInt16($0, at: 2)),
                  value: $0.dropFirst(4))
        }
    }

    public var description: String {
        entries.map { e in
            let v = BluetoothUUID(littleEndian: e.value).map(describeUUID) ?? hexString(e.value)
            return "\(e.handle)..\(e.endGroupHandle) \(v)"
        }.joined(separator: ", ")
    }
}

/// An entry that starts with (attribute handle, group end handle): neither zero handle
/// nor a group that ends before it starts.
@inlinable
func validateHandlePair(_ entry: ArraySlice<UInt8>, at offset: Int, opcode: UInt8?) throws(ATTDecodingError) {
    let start = readUInt16(entry, at: 0), end = readUInt16(entry, at: 2)
    if start == 0 { throw ATTDecodingError(.zeroHandle(field: "attribute handle"), offset: offset, opcode: opcode) }
    if end < start { throw ATTDecodingError(.invalidHandleRange(start: start, end: end), offset: offset + 2, opcode: opcode) }
}
