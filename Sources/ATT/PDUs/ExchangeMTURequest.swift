/// ATT_EXCHANGE_MTU_REQ (Vol 3 Part F §3.4.2.1).
public struct ExchangeMTURequest: ATTPDUBody {
    public static let opcode = ATTOpcode.exchangeMTURequest
    public var clientRxMTU: UInt16

    public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        clientRxMTU = try reader.readUInt16("client rx mtu")
    }

    public var parameterLength: Int { 2 }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { appendUInt16(clientRxMTU, to: &buffer) }
    public var description: String { "client rx mtu \(clientRxMTU)" }
}
