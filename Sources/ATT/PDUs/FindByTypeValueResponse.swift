/// ATT_FIND_BY_TYPE_VALUE_RSP (Vol 3 Part F §3.4.3.4): found handle and group end
/// handle pairs, read in place by ``entries``.
public struct FindByTypeValueResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.findByTypeValueResponse

    public struct Entry: Hashable, Sendable {
        public var foundHandle: AttributeHandle
        public var groupEndHandle: AttributeHandle
        @inlinable
        public init(foundHandle: AttributeHandle, groupEndHandle: AttributeHandle) {
            self.foundHandle = foundHandle
            self.groupEndHandle = groupEndHandle
        }
    }

    /// The handles information list, 4 bytes an entry (no length byte on the wire).
    public var list: FixedLengthList
    public var data: ArraySlice<UInt8> { list.data }

    public init(data: ArraySlice<UInt8>) { list = FixedLengthList(length: 4, data: data) }

    public init(entries: [Entry]) {
        var data: [UInt8] = []
        data.reserveCapacity(entries.count * 4)
        for e in entries {
            appendUInt16(e.foundHandle.rawValue, to: &data)
            appendUInt16(e.groupEndHandle.rawValue, to: &data)
        }
        list = FixedLengthList(length: 4, data: data[...])
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let body = reader.offset
        list = try FixedLengthList(length: 4, validating: reader.readRest(), bodyOffset: body, opcode: reader.opcode,
                                   field: "handles information list", validate: validateHandlePair)
    }

    public var parameterLength: Int { list.data.count }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { buffer.append(contentsOf: list.data) }

    @inlinable
    public var entries: LazyMapSequence<FixedLengthList, Entry> {
        list.lazy.map { Entry(foundHandle: AttributeHandle(readUInt16($0, at: 0)), groupEndHandle: AttributeHandle(readUInt16($0, at: 2))) }
    }

    public var description: String {
        entries.map { "\($0.foundHandle)..\($0.groupEndHandle)" }.joined(separator: ", ")
    }
}
