/// Prepare Write requests and responses share a layout: handle, offset, part value.
public protocol PrepareWritePDU: ATTPDUBody {
    var handle: AttributeHandle { get }
    var offset: UInt16 { get }
    var partValue: ArraySlice<UInt8> { get }
    init(handle: AttributeHandle, offset: UInt16, partValue: ArraySlice<UInt8>)
}

extension PrepareWritePDU {
    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let handle = try reader.readHandle("attribute handle")
        let offset = try reader.readUInt16("value offset")
        self.init(handle: handle, offset: offset, partValue: reader.readRest())
    }

    public init(handle: AttributeHandle, offset: UInt16, partValue: [UInt8]) {
        self.init(handle: handle, offset: offset, partValue: partValue[...])
    }

    public var parameterLength: Int { 4 + partValue.count }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        appendUInt16(handle.rawValue, to: &buffer)
        appendUInt16(offset, to: &buffer)
        buffer.append(contentsOf: partValue)
    }

    public var description: String { "handle \(handle) offset \(offset) part \(hexString(partValue))" }
}

/// ATT_PREPARE_WRITE_REQ (Vol 3 Part F §3.4.6.1).
public struct PrepareWriteRequest: PrepareWritePDU {
    public static let opcode = ATTOpcode.prepareWriteRequest
    public var handle: AttributeHandle
    public var offset: UInt16
    public var partValue: ArraySlice<UInt8>
    public init(handle: AttributeHandle, offset: UInt16, partValue: ArraySlice<UInt8>) {
        self.handle = handle
        self.offset = offset
        self.partValue = partValue
    }
}

/// ATT_PREPARE_WRITE_RSP (Vol 3 Part F §3.4.6.2): echoes the request, so the client can
/// verify it for reliable writes.
public struct PrepareWriteResponse: PrepareWritePDU {
    public static let opcode = ATTOpcode.prepareWriteResponse
    public var handle: AttributeHandle
    public var offset: UInt16
    public var partValue: ArraySlice<UInt8>
    public init(handle: AttributeHandle, offset: UInt16, partValue: ArraySlice<UInt8>) {
        self.handle = handle
        self.offset = offset
        self.partValue = partValue
    }
}
