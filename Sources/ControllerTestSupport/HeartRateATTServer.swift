/// The ATT answers of a one-service peripheral, for ``FloodingController``: Heart Rate
/// (0x180D) at 0x0010–0x0013 with one notifying Heart Rate Measurement (0x2A37, value
/// handle 0x0012) and its CCCD (0x2902) at 0x0013. Enough for the central's MTU
/// exchange, discovery, CCCD read and write; every other request gets an Error Response, so
/// no procedure waits for an answer that never comes.
public enum HeartRateATTServer {
    public static let valueHandle: UInt16 = 0x0012

    /// The response to one PDU from the central, or nil when it needs none (commands,
    /// confirmations, and anything that is not a request).
    public static func response(to pdu: [UInt8]) -> [UInt8]? {
        guard let opcode = pdu.first else { return nil }
        let start = pdu.count >= 3 ? UInt16(pdu[1]) | UInt16(pdu[2]) << 8 : 0
        let end = pdu.count >= 5 ? UInt16(pdu[3]) | UInt16(pdu[4]) << 8 : 0
        let type = pdu.count >= 7 ? UInt16(pdu[5]) | UInt16(pdu[6]) << 8 : 0
        switch opcode {
        case 0x02:  // Exchange MTU: 23 keeps every notification in one 27-byte ACL packet.
            return [0x03, 23, 0]
        case 0x10 where type == 0x2800 && start <= 0x0010 && end >= 0x0010:  // Read By Group Type: primary services
            return [0x11, 6, 0x10, 0x00, 0x13, 0x00, 0x0D, 0x18]
        case 0x06 where type == 0x2800 && pdu.count == 9 && pdu[7] == 0x0D && pdu[8] == 0x18
                        && start <= 0x0010 && end >= 0x0010:  // Find By Type Value: the service by UUID
            return [0x07, 0x10, 0x00, 0x13, 0x00]
        case 0x08 where type == 0x2803 && start <= 0x0011 && end >= 0x0011:  // Read By Type: characteristic declarations
            return [0x09, 7, 0x11, 0x00, 0x10, 0x12, 0x00, 0x37, 0x2A]
        case 0x04 where start <= 0x0013 && end >= 0x0013:  // Find Information: the CCCD
            return [0x05, 0x01, 0x13, 0x00, 0x02, 0x29]
        case 0x12:  // Write Request (the CCCD)
            return [0x13]
        case 0x0A where start == 0x0013:  // Read Request: the CCCD, notifications off
            return [0x0B, 0x00, 0x00]
        case 0x04, 0x06, 0x08, 0x10:  // past the last attribute: discovery ends here
            return error(opcode, start, 0x0A)
        default:
            // Requests (bit 6 clear, not a response or confirmation) get Request Not Supported.
            let isRequest = opcode & 0x40 == 0 && opcode & 0x01 == 0 && opcode != 0x1E
            return isRequest ? error(opcode, start, 0x06) : nil
        }
    }

    /// Error Response: request opcode, handle in error, error code.
    public static func error(_ opcode: UInt8, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [0x01, opcode, UInt8(handle & 0xFF), UInt8(handle >> 8), code]
    }
}
