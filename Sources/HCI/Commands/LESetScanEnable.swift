/// HCI_LE_Set_Scan_Enable (Vol 4 Part E §7.8.11), the legacy scanner.
public struct LESetScanEnable: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    public var enable: Bool
    public var filterDuplicates: Bool
    public init(enable: Bool, filterDuplicates: Bool = false) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
    }
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(enable ? 1 : 0)
        buffer.append(filterDuplicates ? 1 : 0)
    }
}
