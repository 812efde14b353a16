/// HCI_LE_Create_Connection_Cancel (Vol 4 Part E §7.8.13): stops a pending LE Create Connection; the controller then reports LE Connection Complete with Unknown Connection Identifier (0x02).
public struct LECreateConnectionCancel: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x000E)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}
}
