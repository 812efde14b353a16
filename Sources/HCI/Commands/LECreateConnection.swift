/// HCI_LE_Create_Connection (Vol 4 Part E §7.8.12), the legacy initiator.
public struct LECreateConnection: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x000D)
    /// In units of 0.625 ms.
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    /// 0x00: connect to the peer given here; 0x01: to any device on the Filter Accept List.
    public var initiatorFilterPolicy: UInt8
    /// The peer's address type exactly as it advertised (public 0x00, random 0x01, or identity 0x02/0x03).
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    public var ownAddressType: OwnAddressType
    public var parameters: ConnectionParameters

    public init(scanInterval: UInt16 = 0x0010, scanWindow: UInt16 = 0x0010, initiatorFilterPolicy: UInt8 = 0,
                peerAddressType: UInt8, peerAddress: BluetoothAddress, ownAddressType: OwnAddressType,
                parameters: ConnectionParameters = ConnectionParameters()) {
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.initiatorFilterPolicy = initiatorFilterPolicy
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.ownAddressType = ownAddressType
        self.parameters = parameters
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(scanInterval)
        buffer.appendLittleEndian(scanWindow)
        buffer.append(initiatorFilterPolicy)
        buffer.append(peerAddressType)
        buffer.append(peerAddress)
        buffer.append(ownAddressType.rawValue)
        parameters.encode(into: &buffer)
    }
}
