/// HCI_Read_Buffer_Size (Vol 4 Part E §7.4.5). LE uses these shared ACL buffers when
/// LE Read Buffer Size reports a data packet length of zero.
public struct ReadBufferSize: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x04, ocf: 0x0005)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}

    public struct ReturnParameters: Hashable, Sendable {
        public var aclDataPacketLength: UInt16
        public var totalNumACLDataPackets: UInt16
    }

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters {
        var r = PacketReader(bytes, structure: "Read Buffer Size return")
        _ = try r.uint8("Status")
        let length = try r.uint16("ACL_Data_Packet_Length")
        _ = try r.uint8("Synchronous_Data_Packet_Length")
        let count = try r.uint16("Total_Num_ACL_Data_Packets")
        return ReturnParameters(aclDataPacketLength: length, totalNumACLDataPackets: count)
    }
}
