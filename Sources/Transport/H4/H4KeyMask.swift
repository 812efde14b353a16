import HCI

/// Masks the keys in H4 packets before they are recorded (`--snoop` captures): the
/// Long_Term_Key of LE Enable Encryption and of LE Long Term Key Request Reply becomes
/// zeros, so a capture shared for debugging never carries a link's key.
enum H4KeyMask {
    /// The packet with any key zeroed; other packets unchanged.
    static func masked(_ packet: [UInt8]) -> [UInt8] {
        // Command packets: indicator 0x01, opcode (2), length (1), parameters.
        guard packet.count >= 4, packet[0] == 0x01 else { return packet }
        let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        let keyOffset: Int
        switch opcode {
        case LEEnableEncryption.opcode.rawValue: keyOffset = 4 + 2 + 8 + 2
        case LELongTermKeyRequestReply.opcode.rawValue: keyOffset = 4 + 2
        default: return packet
        }
        var copy = packet
        for index in keyOffset..<min(copy.count, keyOffset + 16) { copy[index] = 0 }
        return copy
    }
}
