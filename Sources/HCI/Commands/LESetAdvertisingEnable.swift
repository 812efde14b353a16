/// HCI_LE_Set_Advertising_Enable (Vol 4 Part E §7.8.9), the legacy advertiser.
public struct LESetAdvertisingEnable: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    public var enable: Bool
    public init(enable: Bool) { self.enable = enable }
    public func encodeParameters(into buffer: inout [UInt8]) { buffer.append(enable ? 1 : 0) }
}
