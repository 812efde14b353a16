/// HCI_Read_BD_ADDR (Vol 4 Part E §7.4.6): the controller's public address.
public struct ReadBDADDR: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x04, ocf: 0x0009)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> BluetoothAddress {
        var r = PacketReader(bytes, structure: "Read BD_ADDR return")
        _ = try r.uint8("Status")
        return try r.address("BD_ADDR")
    }
}
