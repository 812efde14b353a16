/// HCI_LE_Set_Scan_Parameters (Vol 4 Part E §7.8.10), the legacy scanner.
public struct LESetScanParameters: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    /// 0x00 passive, 0x01 active (sends scan requests, so scan responses arrive).
    public var scanType: UInt8
    /// In units of 0.625 ms, 0x0004–0x4000.
    public var scanInterval: UInt16
    /// In units of 0.625 ms, at most the interval.
    public var scanWindow: UInt16
    public var ownAddressType: OwnAddressType
    public var scanningFilterPolicy: UInt8

    public init(scanType: UInt8 = 0x01, scanInterval: UInt16 = 0x0010, scanWindow: UInt16 = 0x0010,
                ownAddressType: OwnAddressType, scanningFilterPolicy: UInt8 = 0x00) {
        self.scanType = scanType
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.ownAddressType = ownAddressType
        self.scanningFilterPolicy = scanningFilterPolicy
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(scanType)
        buffer.appendLittleEndian(scanInterval)
        buffer.appendLittleEndian(scanWindow)
        buffer.append(ownAddressType.rawValue)
        buffer.append(scanningFilterPolicy)
    }
}
