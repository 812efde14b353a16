/// HCI_Disconnect (Vol 4 Part E §7.1.6).
public struct Disconnect: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x01, ocf: 0x0006)
    public var connectionHandle: UInt16
    /// An HCI error code (Vol 1 Part F); 0x13 Remote User Terminated Connection is usual.
    public var reason: UInt8
    public init(connectionHandle: UInt16, reason: UInt8 = 0x13) {
        self.connectionHandle = connectionHandle
        self.reason = reason
    }
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(connectionHandle)
        buffer.append(reason)
    }
}
