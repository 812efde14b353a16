/// HCI_LE_Extended_Create_Connection [v1] (Vol 4 Part E §7.8.66).
public struct LEExtendedCreateConnection: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0043)

    /// The settings for one initiating PHY.
    public struct PHYParameters: Hashable, Sendable {
        /// In units of 0.625 ms.
        public var scanInterval: UInt16
        public var scanWindow: UInt16
        public var connection: ConnectionParameters
        public init(scanInterval: UInt16 = 0x0010, scanWindow: UInt16 = 0x0010,
                    connection: ConnectionParameters = ConnectionParameters()) {
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
            self.connection = connection
        }
    }

    public var initiatorFilterPolicy: UInt8
    public var ownAddressType: OwnAddressType
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    /// Initiating on LE 1M (Initiating_PHYs bit 0).
    public var le1M: PHYParameters?
    /// On LE 2M (bit 1): connection parameters only, scanning happens on the primary PHYs.
    public var le2M: PHYParameters?
    /// On LE Coded (bit 2).
    public var leCoded: PHYParameters?

    public init(initiatorFilterPolicy: UInt8 = 0, ownAddressType: OwnAddressType, peerAddressType: UInt8,
                peerAddress: BluetoothAddress, le1M: PHYParameters? = PHYParameters(),
                le2M: PHYParameters? = nil, leCoded: PHYParameters? = nil) {
        self.initiatorFilterPolicy = initiatorFilterPolicy
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.le1M = le1M
        self.le2M = le2M
        self.leCoded = leCoded
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(initiatorFilterPolicy)
        buffer.append(ownAddressType.rawValue)
        buffer.append(peerAddressType)
        buffer.append(peerAddress)
        buffer.append((le1M == nil ? 0 : 0x01) | (le2M == nil ? 0 : 0x02) | (leCoded == nil ? 0 : 0x04))
        for phy in [le1M, le2M, leCoded] {
            guard let phy else { continue }
            buffer.appendLittleEndian(phy.scanInterval)
            buffer.appendLittleEndian(phy.scanWindow)
            phy.connection.encode(into: &buffer)
        }
    }
}
