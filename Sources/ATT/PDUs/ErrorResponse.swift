/// ATT_ERROR_RSP (Vol 3 Part F §3.4.1.1).
public struct ErrorResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.errorResponse
    /// The opcode of the request that failed.
    public var requestOpcode: ATTOpcode
    /// The handle that caused the error; 0x0000 when no handle applies.
    public var handle: AttributeHandle
    public var errorCode: ATTErrorCode

    public init(requestOpcode: ATTOpcode, handle: AttributeHandle, errorCode: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.errorCode = errorCode
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        requestOpcode = ATTOpcode(try reader.readUInt8("request opcode in error"))
        handle = try reader.readHandle("attribute handle in error")
        errorCode = ATTErrorCode(try reader.readUInt8("error code"))
    }

    public var parameterLength: Int { 4 }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        buffer.append(requestOpcode.rawValue)
        appendUInt16(handle.rawValue, to: &buffer)
        buffer.append(errorCode.rawValue)
    }

    public var description: String { "request \(requestOpcode.name) handle \(handle) error \(errorCode)" }
}
