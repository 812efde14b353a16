/// ATT_FIND_INFORMATION_RSP (Vol 3 Part F §3.4.3.2): handle–UUID pairs, all 16-bit or all
/// 128-bit as the format byte says. Entries are read in place by ``entries``.
public struct FindInformationResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.findInformationResponse

    public enum Format: UInt8, Hashable, Sendable {
        case uuid16 = 0x01
        case uuid128 = 0x02
        /// Bytes per handle–UUID pair.
        public var entryLength: Int { self == .uuid16 ? 4 : 18 }
    }

    public struct Entry: Hashable, Sendable {
        public var handle: AttributeHandle
        public var type: BluetoothUUID
        public init(handle: AttributeHandle, type: BluetoothUUID) {
            self.handle = handle
            self.type = type
        }
    }

    public var format: Format
    /// The information data: whole entries, back to back.
    public var data: ArraySlice<UInt8>

    /// Wraps already-encoded information data. Use ``init(entries:)`` to build one.
    public init(format: Format, data: ArraySlice<UInt8>) {
        self.format = format
        self.data = data
    }

    /// Builds a response; every UUID must have the width of the first one.
    public init(entries: [Entry]) throws(ATTEncodingError) {
        guard let first = entries.first else { throw .invalidField("a Find Information Response needs an entry") }
        let format: Format = first.type.attForm.width == .bits16 ? .uuid16 : .uuid128
        var data: [UInt8] = []
        data.reserveCapacity(entries.count * format.entryLength)
        for entry in entries {
            let uuid = entry.type.attForm
            guard (uuid.width == .bits16) == (format == .uuid16) else {
                throw .invalidField("Find Information Response entries mix 16- and 128-bit UUIDs")
            }
            appendUInt16(entry.handle.rawValue, to: &data)
            uuid.append(to: &data)
        }
        self.init(format: format, data: data[...])
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let formatOffset = reader.offset
        let raw = try reader.readUInt8("format")
        guard let format = Format(rawValue: raw) else {
            throw ATTDecodingError(.invalidValue(field: "format", value: Int(raw)), offset: formatOffset, opcode: reader.opcode)
        }
        let bodyOffset = reader.offset
        let data = reader.readRest()
        guard !data.isEmpty else {
            throw ATTDecodingError(.tooFewEntries(field: "information data", count: 0, minimum: 1), offset: bodyOffset, opcode: reader.opcode)
        }
        guard data.count % format.entryLength == 0 else {
            throw ATTDecodingError(.inconsistentList(field: "information data", entryLength: format.entryLength, bodyLength: data.count),
                                   offset: bodyOffset, opcode: reader.opcode)
        }
        var i = data.startIndex
        while i < data.endIndex {
            if data[i] == 0 && data[i + 1] == 0 {
                throw ATTDecodingError(.zeroHandle(field: "handle"), offset: bodyOffset + (i - data.startIndex), opcode: reader.opcode)
            }
            i += format.entryLength
        }
        self.format = format
        self.data = data
    }

    public var parameterLength: Int { 1 + data.count }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        buffer.append(format.rawValue)
        buffer.append(contentsOf: data)
    }

    /// The handle–UUID pairs, decoded lazily.
    public var entries: Entries { Entries(data: data, format: format) }

    public struct Entries: Sequence, Sendable {
        @usableFromInline let data: ArraySlice<UInt8>
        @usableFromInline let format: Format
        public var count: Int { data.count / format.entryLength }
        public func makeIterator() -> Iterator { Iterator(data: data, format: format, index: data.startIndex) }

        public struct Iterator: IteratorProtocol {
            @usableFromInline let data: ArraySlice<UInt8>
            @usableFromInline let format: Format
            @usableFromInline var index: Int
            public mutating func next() -> Entry? {
                let step = format.entryLength
                guard index + step <= data.endIndex else { return nil }
                let handle = AttributeHandle(UInt16(data[index]) | UInt16(data[index + 1]) << 8)
                let type = BluetoothUUID(littleEndian: data[(index + 2)..<(index + step)]) ?? BluetoothUUID(0)
                index += step
                return Entry(handle: handle, type: type)
            }
        }
    }

    public var description: String {
        entries.map { "\($0.handle) \(describeUUID($0.type))" }.joined(separator: ", ")
    }
}
