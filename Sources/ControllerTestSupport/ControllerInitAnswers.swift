/// What a scripted controller answers to the userland host's initialisation (HCI Reset,
/// the Read… commands, the LE set-up): a controller with only the legacy LE commands,
/// 27-byte LE ACL buffers and the public address 01:02:03:04:05:06.
public enum ControllerInitAnswers {
    /// The return parameters of the Command Complete for `opcode`, status first.
    public static func returnParameters(for opcode: UInt16) -> [UInt8] {
        switch opcode {
        case 0x1002: [0] + Array(repeating: 0, count: 64)  // Read Local Supported Commands: no optional ones
        case 0x1003, 0x2003: [0] + Array(repeating: 0, count: 8)  // (LE) Read Local Supported Features
        case 0x2002: [0, 27, 0, 8]  // LE Read Buffer Size: 27-byte LE ACL buffers, 8 of them
        case 0x1009: [0, 6, 5, 4, 3, 2, 1]  // Read BD_ADDR
        default: [0]
        }
    }

    /// The Command Complete for one command packet (indicator 0x01 first), or nil for a
    /// packet too short to carry an opcode.
    public static func commandComplete(answering packet: [UInt8]) -> [UInt8]? {
        guard packet.count >= 4, packet[0] == 0x01 else { return nil }
        let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        return H4Packet.commandComplete(opcode, returnParameters(for: opcode))
    }
}
