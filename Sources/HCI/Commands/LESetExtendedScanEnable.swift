/// HCI_LE_Set_Extended_Scan_Enable (Vol 4 Part E §7.8.65).
public struct LESetExtendedScanEnable: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0042)
    public var enable: Bool
    /// 0x00 off, 0x01 on, 0x02 on and reset each scan period.
    public var filterDuplicates: UInt8
    /// In units of 10 ms; 0 scans until disabled.
    public var duration: UInt16
    /// In units of 1.28 s; 0 scans continuously.
    public var period: UInt16

    public init(enable: Bool, filterDuplicates: UInt8 = 0, duration: UInt16 = 0, period: UInt16 = 0) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
        self.duration = duration
        self.period = period
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(enable ? 1 : 0)
        buffer.append(filterDuplicates)
        buffer.appendLittleEndian(duration)
        buffer.appendLittleEndian(period)
    }
}
