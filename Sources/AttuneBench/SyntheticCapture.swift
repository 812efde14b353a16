import Capture
import HCI

/// Writes a synthetic btsnoop (H4, datalink 1002) capture of one LE connection (or of
/// `connections` one after another) carrying at least `pdus` ATT PDUs in a realistic mix,
/// with 27-byte ACL buffers so that every PDU longer than 23 bytes is fragmented, and
/// Number Of Completed Packets events interleaved as a controller sends them.
enum SyntheticCapture {
    static let handle: UInt16 = 0x0040
    static let aclBufferSize = 27

    /// Returns the number of ATT PDUs written.
    @discardableResult
    static func write(path: String, pdus: Int, connections: Int = 1) throws -> Int {
        var writer = try CaptureWriter(path: path, format: .btsnoop(.hciUART))
        var clock: Int64 = 1_750_000_000_000_000
        func record(_ type: H4PacketType, _ direction: CaptureDirection, _ bytes: [UInt8]) throws {
            clock += 625
            try writer.write(CaptureRecord(kind: .hci(type), direction: direction, timestamp: clock, payload: bytes[...]))
        }
        // LE Connection Complete: handle 0x0040, central, peer C0:FF:EE:00:00:01 (random).
        func connect() throws {
            try record(.event, .received, [0x3E, 0x13, 0x01, 0x00, UInt8(handle), 0x00, 0x00, 0x01,
                                           0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00])
        }
        try connect()
        // Rounds of 8 PDUs per connection, when there are several.
        let roundsPerConnection = max(1, (pdus + 7) / 8 / max(1, connections))
        func att(_ direction: CaptureDirection, _ pdu: [UInt8]) throws {
            let frame: [UInt8] = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
            var offset = 0
            while offset < frame.count {
                let end = min(offset + aclBufferSize, frame.count)
                let boundary: UInt16 = offset == 0 ? (direction == .sent ? 0b00 : 0b10) : 0b01
                let word = handle | boundary << 12
                let count = end - offset
                try record(.aclData, direction, [UInt8(word & 0xFF), UInt8(word >> 8), UInt8(count), 0x00]
                    + frame[offset..<end])
                offset = end
            }
        }
        let value60 = (0..<60).map { UInt8($0) }
        let value100 = (0..<100).map { UInt8(255 - $0) }
        var written = 0
        var round = 0
        while written < pdus {
            let h = UInt8(truncatingIfNeeded: 3 + round % 40)
            try att(.sent, [0x0A, h, 0x00])                                  // Read Request
            try att(.received, [0x0B] + value60)                             // Read Response, 3 fragments
            try att(.received, [0x1B, 0x12, 0x00] + value60.prefix(20))      // Notification
            try att(.sent, [0x52, 0x15, 0x00] + value60.prefix(10))          // Write Command
            try att(.sent, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28])       // Read By Type Request
            try att(.received, [0x09, 0x07,                                  // Read By Type Response, 3 entries
                                0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A,
                                0x04, 0x00, 0x02, 0x05, 0x00, 0x01, 0x2A,
                                0x06, 0x00, 0x0A, 0x07, 0x00, 0x29, 0x2A])
            try att(.sent, [0x12, 0x20, 0x00] + value100)                    // Write Request, 5 fragments
            try att(.received, [0x13])                                       // Write Response
            // Number Of Completed Packets for the 13 packets sent this round.
            try record(.event, .received, [0x13, 0x05, 0x01, UInt8(handle), 0x00, 13, 0x00])
            written += 8
            round += 1
            if connections > 1, round % roundsPerConnection == 0, written < pdus {
                // Disconnection Complete (remote user terminated), then the next connection.
                try record(.event, .received, [0x05, 0x04, 0x00, UInt8(handle), 0x00, 0x13])
                try connect()
            }
        }
        try writer.finish()
        return written
    }
}
