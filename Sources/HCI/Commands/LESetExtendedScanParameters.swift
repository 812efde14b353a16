/// HCI_LE_Set_Extended_Scan_Parameters (Vol 4 Part E §7.8.64).
public struct LESetExtendedScanParameters: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0041)

    /// The settings for one scanning PHY.
    public struct PHYParameters: Hashable, Sendable {
        /// 0x00 passive, 0x01 active.
        public var scanType: UInt8
        /// In units of 0.625 ms.
        public var scanInterval: UInt16
        public var scanWindow: UInt16
        public init(scanType: UInt8 = 0x01, scanInterval: UInt16 = 0x0010, scanWindow: UInt16 = 0x0010) {
            self.scanType = scanType
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
        }
    }

    public var ownAddressType: OwnAddressType
    public var scanningFilterPolicy: UInt8
    /// Settings on LE 1M (Scanning_PHYs bit 0).
    public var le1M: PHYParameters?
    /// Settings on LE Coded (Scanning_PHYs bit 2).
    public var leCoded: PHYParameters?

    public init(ownAddressType: OwnAddressType, scanningFilterPolicy: UInt8 = 0x00,
                le1M: PHYParameters? = PHYParameters(), leCoded: PHYParameters? = nil) {
        self.ownAddressType = ownAddressType
        self.scanningFilterPolicy = scanningFilterPolicy
        self.le1M = le1M
        self.leCoded = leCoded
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(ownAddressType.rawValue)
        buffer.append(scanningFilterPolicy)
        buffer.append((le1M == nil ? 0 : 0x01) | (leCoded == nil ? 0 : 0x04))
        // The per-PHY arrays follow in bit order of Scanning_PHYs.
        for phy in [le1M, leCoded] {
            guard let phy else { continue }
            buffer.append(phy.scanType)
            buffer.appendLittleEndian(phy.scanInterval)
            buffer.appendLittleEndian(phy.scanWindow)
        }
    }
}
