/// HCI_LE_Set_Random_Address (Vol 4 Part E §7.8.4).
public struct LESetRandomAddress: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0005)
    public var address: BluetoothAddress
    public init(address: BluetoothAddress) { self.address = address }
    public func encodeParameters(into buffer: inout [UInt8]) { buffer.append(address) }
}
