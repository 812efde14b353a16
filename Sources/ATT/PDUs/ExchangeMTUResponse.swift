/// ATT_EXCHANGE_MTU_RSP (Vol 3 Part F §3.4.2.2).
public struct ExchangeMTUResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.exchangeMTUResponse
    public var serverRxMTU: UInt16

    public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        serverRxMTU = try reader.readUInt16("server rx mtu")
    }

    public var parameterLength: Int { 2 }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { appendUInt16(serverRxMTU, to: &buffer) }
    public var description: String { "server rx mtu \(serverRxMTU)" }
}
