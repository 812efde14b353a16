import Capture
import Foundation
import HCI

/// Writes a capture of many LE connections one after another, each a short GATT session
/// (Exchange MTU, service discovery, reads, a write, a notification), streaming: nothing
/// but the writer's buffer is held, so captures of any length, or endless ones into a
/// FIFO, can be written.
struct SyntheticConversations {
    var writer: CaptureWriter<FileOutput>
    var clock: Int64 = 1_750_000_000_000_000
    var written = 0

    init(path: String) throws {
        writer = try CaptureWriter(path: path, format: .btsnoop(.hciUART))
    }

    static let handle: UInt16 = 0x0040

    /// One connection of 2 × `rounds` + 12 ATT PDUs, as the peripheral's host captured it.
    mutating func writeConversation(rounds: Int) throws {
        try open()
        try writeReads(rounds)
        try close()
    }

    mutating func tick() -> Int64 {
        clock += 625
        return clock
    }

    mutating func att(_ direction: CaptureDirection, _ pdu: [UInt8]) throws {
        for record in SynthesizedHCI.attPDU(pdu, handle: Self.handle, direction: direction, at: tick()) {
            try writer.write(record)
        }
        written += 1
    }

    /// The connection made, then its MTU exchange and discovery: 10 ATT PDUs.
    mutating func open() throws {
        try writer.write(SynthesizedHCI.connectionComplete(handle: Self.handle, isCentral: false, peerAddressType: 1,
                                                           peer: BluetoothAddress(0xC0, 0xFF, 0xEE, 0x00, 0x00, 0x01),
                                                           at: tick()))
        // The central's requests arrive (received); our answers leave (sent).
        try att(.received, [0x02, 0xF7, 0x00])                          // Exchange MTU Request, 247
        try att(.sent, [0x03, 0xF7, 0x00])                              // Exchange MTU Response, 247
        try att(.received, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])  // Read By Group Type, primary services
        try att(.sent, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0D, 0x18]) // Heart Rate, 0x0001–0x0005
        try att(.received, [0x10, 0x06, 0x00, 0xFF, 0xFF, 0x00, 0x28])  // the rest of the range
        try att(.sent, [0x01, 0x10, 0x06, 0x00, 0x0A])                  // Attribute Not Found
        try att(.received, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28])  // Read By Type, characteristics
        try att(.sent, [0x09, 0x07, 0x02, 0x00, 0x1A, 0x03, 0x00, 0x37, 0x2A]) // 0x0003 Heart Rate Measurement
        try att(.received, [0x08, 0x03, 0x00, 0x05, 0x00, 0x03, 0x28])  // the rest of the service
        try att(.sent, [0x01, 0x08, 0x03, 0x00, 0x0A])                  // Attribute Not Found
    }

    /// `rounds` reads of the measurement and their answers: 2 × `rounds` ATT PDUs.
    mutating func writeReads(_ rounds: Int) throws {
        for _ in 0..<rounds {
            try att(.received, [0x0A, 0x03, 0x00])                      // Read Request 0x0003
            try att(.sent, [0x0B, 0x00, 0x48])                          // 72 bpm
        }
    }

    /// A write and its answer, then the disconnection: 2 ATT PDUs.
    mutating func close() throws {
        try att(.received, [0x12, 0x03, 0x00, 0x00, 0x48])              // Write Request 0x0003, the same value
        try att(.sent, [0x13])                                          // Write Response
        try writer.write(SynthesizedHCI.disconnectionComplete(handle: Self.handle, reason: 0x13, at: tick()))
    }
}
