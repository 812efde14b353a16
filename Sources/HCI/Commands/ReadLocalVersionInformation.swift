/// HCI_Read_Local_Version_Information (Vol 4 Part E §7.4.1).
public struct ReadLocalVersionInformation: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}
}
