/// HCI_LE_Connection_Update (Vol 4 Part E §7.8.18). A central applies parameters it
/// accepted from a peripheral's L2CAP Connection Parameter Update Request with this.
public struct LEConnectionUpdate: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0013)
    public var connectionHandle: UInt16
    public var parameters: ConnectionParameters
    public init(connectionHandle: UInt16, parameters: ConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.parameters = parameters
    }
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(connectionHandle)
        parameters.encode(into: &buffer)
    }
}
