/// HCI_LE_Read_Buffer_Size [v2] (Vol 4 Part E §7.8.2): v1 plus the ISO buffers.
/// Used when the controller lists it in its supported commands.
public struct LEReadBufferSizeV2: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0060)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}

    public struct ReturnParameters: Hashable, Sendable {
        public var leACLDataPacketLength: UInt16
        public var totalNumLEACLDataPackets: UInt8
        public var isoDataPacketLength: UInt16
        public var totalNumISODataPackets: UInt8
    }

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters {
        var r = PacketReader(bytes, structure: "LE Read Buffer Size v2 return")
        _ = try r.uint8("Status")
        return ReturnParameters(
            leACLDataPacketLength: try r.uint16("LE_ACL_Data_Packet_Length"),
            totalNumLEACLDataPackets: try r.uint8("Total_Num_LE_ACL_Data_Packets"),
            isoDataPacketLength: try r.uint16("ISO_Data_Packet_Length"),
            totalNumISODataPackets: try r.uint8("Total_Num_ISO_Data_Packets"))
    }
}
