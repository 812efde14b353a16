/// HCI_LE_Set_Advertising_Set_Random_Address (Vol 4 Part E §7.8.52): the random
/// address an extended advertising set uses (LE Set Random Address does not apply to sets).
public struct LESetAdvertisingSetRandomAddress: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0035)
    public var advertisingHandle: UInt8
    public var address: BluetoothAddress
    public init(advertisingHandle: UInt8, address: BluetoothAddress) {
        self.advertisingHandle = advertisingHandle
        self.address = address
    }
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(advertisingHandle)
        buffer.append(address)
    }
}
