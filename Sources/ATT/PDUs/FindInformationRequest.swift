/// ATT_FIND_INFORMATION_REQ (Vol 3 Part F §3.4.3.1).
public struct FindInformationRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.findInformationRequest
    public var range: AttributeHandleRange

    public init(range: AttributeHandleRange) { self.range = range }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        range = try readRange(&reader)
    }

    public var parameterLength: Int { 4 }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { appendRange(range, to: &buffer) }
    public var description: String { "\(range)" }
}
