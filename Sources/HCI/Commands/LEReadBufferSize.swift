/// HCI_LE_Read_Buffer_Size [v1] (Vol 4 Part E §7.8.2): the controller's LE ACL buffers,
/// which bound how large and how many ACL packets the host may have in flight.
public struct LEReadBufferSize: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0002)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}

    public struct ReturnParameters: Hashable, Sendable {
        /// Zero means the LE and BR/EDR buffers are shared: use Read Buffer Size.
        public var leACLDataPacketLength: UInt16
        public var totalNumLEACLDataPackets: UInt8
    }

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters {
        var r = PacketReader(bytes, structure: "LE Read Buffer Size return")
        _ = try r.uint8("Status")
        let length = try r.uint16("LE_ACL_Data_Packet_Length")
        let count = try r.uint8("Total_Num_LE_ACL_Data_Packets")
        return ReturnParameters(leACLDataPacketLength: length, totalNumLEACLDataPackets: count)
    }
}
