/// HCI_Read_Local_Supported_Features (Vol 4 Part E §7.4.3): the LMP feature mask.
public struct ReadLocalSupportedFeatures: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x04, ocf: 0x0003)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}

    /// The 64-bit LMP_Features mask, bit 0 of octet 0 first.
    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> UInt64 {
        var r = PacketReader(bytes, structure: "Read Local Supported Features return")
        _ = try r.uint8("Status")
        return littleEndianUInt64(try r.slice(8, "LMP_Features"))
    }
}
