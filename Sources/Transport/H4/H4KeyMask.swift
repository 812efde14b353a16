import HCI

/// Masks the keys in H4 packets before they are recorded (`--snoop` captures), so a
/// capture shared for debugging never carries a link's key: the Long_Term_Key of LE Enable
/// Encryption and of LE Long Term Key Request Reply, and the keys SMP distributes over
/// ACL in both directions (Encryption Information's LTK, Identity Information's IRK,
/// Signing Information's CSRK) become zeros. `--snoop-keys` records them as they were.
enum H4KeyMask {
    /// The packet with any key zeroed; other packets unchanged (and not copied).
    static func masked(_ packet: [UInt8]) -> [UInt8] {
        guard packet.count >= 4 else { return packet }
        let keyOffset: Int
        switch packet[0] {
        case 0x01:
            // Command packets: indicator, opcode (2), length (1), parameters.
            let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
            switch opcode {
            case LEEnableEncryption.opcode.rawValue: keyOffset = 4 + 2 + 8 + 2
            case LELongTermKeyRequestReply.opcode.rawValue: keyOffset = 4 + 2
            default: return packet
            }
        case 0x02:
            // ACL: indicator, handle and flags (2), length (2); a first fragment then has
            // the L2CAP header (length, channel) and, on channel 0x0006, the SMP code.
            guard packet.count >= 10, (packet[2] >> 4) & 0x3 != 0b01,
                  UInt16(packet[7]) | UInt16(packet[8]) << 8 == 0x0006 else { return packet }
            switch packet[9] {
            case 0x06, 0x08, 0x0A: keyOffset = 10  // Encryption, Identity, Signing Information
            default: return packet
            }
        default:
            return packet
        }
        var copy = packet
        for index in keyOffset..<min(copy.count, keyOffset + 16) { copy[index] = 0 }
        return copy
    }
}
