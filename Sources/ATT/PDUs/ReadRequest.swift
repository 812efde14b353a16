/// ATT_READ_REQ (Vol 3 Part F §3.4.4.3).
public struct ReadRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.readRequest
    public var handle: AttributeHandle

    public init(handle: AttributeHandle) { self.handle = handle }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        handle = try reader.readHandle("attribute handle")
    }

    public var parameterLength: Int { 2 }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { appendUInt16(handle.rawValue, to: &buffer) }
    public var description: String { "handle \(handle)" }
}
