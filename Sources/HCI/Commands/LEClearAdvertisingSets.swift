/// HCI_LE_Clear_Advertising_Sets (Vol 4 Part E §7.8.60).
public struct LEClearAdvertisingSets: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x003D)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}
}
