/// HCI_LE_Read_Local_Supported_Features (Vol 4 Part E §7.8.3): the LE feature mask
/// (Vol 6 Part B §4.6), which decides between legacy and extended advertising commands.
public struct LEReadLocalSupportedFeatures: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEFeatures {
        var r = PacketReader(bytes, structure: "LE Read Local Supported Features return")
        _ = try r.uint8("Status")
        return LEFeatures(rawValue: littleEndianUInt64(try r.slice(8, "LE_Features")))
    }
}
