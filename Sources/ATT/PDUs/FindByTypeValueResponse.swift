/// ATT_FIND_BY_TYPE_VALUE_RSP (Vol 3 Part F §3.4.3.4): found handle and group end
/// handle pairs, read in place by ``entries``.
public struct FindByTypeValueResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.findByTypeValueResponse

    public struct Entry: Hashable, Sendable {
        public var foundHandle: AttributeHandle
        public var groupEndHandle: AttributeHandle
        public init(foundHandle: AttributeHandle, groupEndHandle: AttributeHandle) {
            self.foundHandle = foundHandle
            self.groupEndHandle = groupEndHandle
        }
    }

    /// The handles information list, 4 bytes an entry.
    public var data: ArraySlice<UInt8>

    public init(data: ArraySlice<UInt8>) { self.data = data }

    public init(entries: [Entry]) {
        var data: [UInt8] = []
        data.reserveCapacity(entries.count * 4)
        for e in entries {
            appendUInt16(e.foundHandle.rawValue, to: &data)
            appendUInt16(e.groupEndHandle.rawValue, to: &data)
        }
        self.data = data[...]
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let body = reader.offset
        let data = reader.readRest()
        try validateHandlePairs(data, entryLength: 4, field: "handles information list", bodyOffset: body, opcode: reader.opcode)
        self.data = data
    }

    public var parameterLength: Int { data.count }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { buffer.append(contentsOf: data) }

    public var entries: LazyMapSequence<StrideTo<Int>, Entry> {
        let d = data
        return stride(from: d.startIndex, to: d.endIndex - 3, by: 4).lazy.map {
            Entry(foundHandle: AttributeHandle(UInt16(d[$0]) | UInt16(d[$0 + 1]) << 8),
                  groupEndHandle: AttributeHandle(UInt16(d[$0 + 2]) | UInt16(d[$0 + 3]) << 8))
        }
    }

    public var description: String {
        entries.map { "\($0.foundHandle)..\($0.groupEndHandle)" }.joined(separator: ", ")
    }
    public var fields: [(String, JSONValue)] {
        [("entries", .array(entries.map {
            .object([("found_handle", .int(Int($0.foundHandle.rawValue))), ("group_end_handle", .int(Int($0.groupEndHandle.rawValue)))])
        }))]
    }
}

/// Checks a list of fixed-length entries that each start with a handle pair (attribute
/// handle, group end handle): whole entries, at least one, no zero handles, and no group
/// that ends before it starts.
@inlinable
func validateHandlePairs(_ data: ArraySlice<UInt8>, entryLength: Int, field: StaticString, bodyOffset: Int, opcode: UInt8?)
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
        let start = UInt16(data[i]) | UInt16(data[i + 1]) << 8
        let end = UInt16(data[i + 2]) | UInt16(data[i + 3]) << 8
        let at = bodyOffset + (i - data.startIndex)
        if start == 0 { throw ATTDecodingError(.zeroHandle(field: "attribute handle"), offset: at, opcode: opcode) }
        if end < start { throw ATTDecodingError(.invalidHandleRange(start: start, end: end), offset: at + 2, opcode: opcode) }
        i += entryLength
    }
}
