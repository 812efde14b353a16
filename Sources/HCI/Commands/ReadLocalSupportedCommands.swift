/// HCI_Read_Local_Supported_Commands (Vol 4 Part E §7.4.2): a 64-octet bit map of the
/// commands the controller implements (octet/bit table in Vol 4 Part E §6.27).
public struct ReadLocalSupportedCommands: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> SupportedCommands {
        var r = PacketReader(bytes, structure: "Read Local Supported Commands return")
        _ = try r.uint8("Status")
        return SupportedCommands(octets: Array(try r.slice(64, "Supported_Commands")))
    }
}
