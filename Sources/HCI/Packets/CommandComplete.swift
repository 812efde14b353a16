/// HCI_Command_Complete (event 0x0E, Vol 4 Part E §7.7.14).
public struct CommandComplete: Hashable, Sendable {
    /// How many more commands the controller accepts now.
    public var numberOfCommandPackets: UInt8
    public var opcode: HCIOpcode
    /// Return parameters; for most commands the first byte is a status.
    public var returnParameters: ArraySlice<UInt8>

    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "Command Complete")
        numberOfCommandPackets = try r.uint8("num HCI command packets")
        opcode = HCIOpcode(rawValue: try r.uint16("command opcode"))
        returnParameters = r.rest()
    }
}
