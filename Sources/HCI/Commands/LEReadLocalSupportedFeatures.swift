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

/// The LE features a controller supports (Vol 6 Part B §4.6, first 64 bits).
public struct LEFeatures: OptionSet, Hashable, Sendable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let encryption = LEFeatures(rawValue: 1 << 0)
    public static let connectionParametersRequest = LEFeatures(rawValue: 1 << 1)
    public static let dataPacketLengthExtension = LEFeatures(rawValue: 1 << 5)
    public static let llPrivacy = LEFeatures(rawValue: 1 << 6)
    public static let le2MPHY = LEFeatures(rawValue: 1 << 8)
    public static let leCodedPHY = LEFeatures(rawValue: 1 << 11)
    /// The extended advertising, scanning and initiating commands exist.
    public static let extendedAdvertising = LEFeatures(rawValue: 1 << 12)
}
