/// ATT_READ_BLOB_REQ (Vol 3 Part F §3.4.4.5).
public struct ReadBlobRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.readBlobRequest
    public var handle: AttributeHandle
    public var offset: UInt16

    public init(handle: AttributeHandle, offset: UInt16) {
        self.handle = handle
        self.offset = offset
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        handle = try reader.readHandle("attribute handle")
        offset = try reader.readUInt16("value offset")
    }

    public var parameterLength: Int { 4 }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        appendUInt16(handle.rawValue, to: &buffer)
        appendUInt16(offset, to: &buffer)
    }
    public var description: String { "handle \(handle) offset \(offset)" }
}
