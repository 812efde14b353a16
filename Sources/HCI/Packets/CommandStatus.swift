/// HCI_Command_Status (event 0x0F, Vol 4 Part E §7.7.15).
public struct CommandStatus: Hashable, Sendable {
    public var status: HCIStatus
    public var numberOfCommandPackets: UInt8
    public var opcode: HCIOpcode

    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "Command Status")
        status = HCIStatus(try r.uint8("status"))
        numberOfCommandPackets = try r.uint8("num HCI command packets")
        opcode = HCIOpcode(rawValue: try r.uint16("command opcode"))
    }
}
