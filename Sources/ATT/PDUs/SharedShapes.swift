/// PDUs whose parameters are an attribute handle then a value: writes, write commands,
/// notifications and indications share this layout.
public protocol HandleValuePDU: ATTPDUBody {
    var handle: AttributeHandle { get }
    var value: ArraySlice<UInt8> { get }
    init(handle: AttributeHandle, value: ArraySlice<UInt8>)
    /// Whether 0x0000 is a decoding error (true for server-sent PDUs; requests carry it
    /// through so that the server can answer Invalid Handle).
    static var rejectsZeroHandle: Bool { get }
}

extension HandleValuePDU {
    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let handle = Self.rejectsZeroHandle
            ? try reader.readNonZeroHandle("attribute handle")
            : try reader.readHandle("attribute handle")
        self.init(handle: handle, value: reader.readRest())
    }

    /// Convenience for building from an array.
    public init(handle: AttributeHandle, value: [UInt8]) { self.init(handle: handle, value: value[...]) }

    public var parameterLength: Int { 2 + value.count }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        appendUInt16(handle.rawValue, to: &buffer)
        buffer.append(contentsOf: value)
    }

    public var description: String { "handle \(handle) value \(hexString(value))" }
}

/// PDUs whose parameters are a single value: read responses.
public protocol ValuePDU: ATTPDUBody {
    var value: ArraySlice<UInt8> { get }
    init(value: ArraySlice<UInt8>)
}

extension ValuePDU {
    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        self.init(value: reader.readRest())
    }

    public init(value: [UInt8]) { self.init(value: value[...]) }
    public var parameterLength: Int { value.count }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { buffer.append(contentsOf: value) }
    public var description: String { "value \(hexString(value))" }
}

/// PDUs with no parameters: write and execute-write responses, confirmations.
public protocol EmptyPDU: ATTPDUBody {
    init()
}

extension EmptyPDU {
    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) { self.init() }
    public var parameterLength: Int { 0 }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {}
    public var description: String { "" }
}

/// Requests that carry a list of two or more handles: Read Multiple and Read Multiple
/// Variable.
public protocol HandleListPDU: ATTPDUBody {
    /// The handles, two bytes each, as on the wire.
    var handleData: ArraySlice<UInt8> { get }
    init(handleData: ArraySlice<UInt8>)
}

extension HandleListPDU {
    public init(handles: [AttributeHandle]) {
        var data: [UInt8] = []
        data.reserveCapacity(handles.count * 2)
        for h in handles { appendUInt16(h.rawValue, to: &data) }
        self.init(handleData: data[...])
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let offset = reader.offset
        let data = reader.readRest()
        guard data.count % 2 == 0 else {
            throw ATTDecodingError(.inconsistentList(field: "set of handles", entryLength: 2, bodyLength: data.count),
                                   offset: offset, opcode: reader.opcode)
        }
        guard data.count >= 4 else {
            throw ATTDecodingError(.tooFewEntries(field: "set of handles", count: data.count / 2, minimum: 2),
                                   offset: offset, opcode: reader.opcode)
        }
        self.init(handleData: data)
    }

    /// The requested handles, decoded lazily.
    public var handles: LazyMapSequence<StrideTo<Int>, AttributeHandle> {
        let data = handleData
        return stride(from: data.startIndex, to: data.endIndex - 1, by: 2).lazy.map {
            AttributeHandle(UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
        }
    }

    public var parameterLength: Int { handleData.count }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { buffer.append(contentsOf: handleData) }
    public var description: String { "handles " + handles.map(\.description).joined(separator: ", ") }
}
