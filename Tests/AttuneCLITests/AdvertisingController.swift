#if canImport(Glibc)
import Glibc
#endif
import ControllerTestSupport
import Foundation
import HCI

/// A controller on a UNIX socket with two advertisers in range, for `attune scan` over
/// `--controller unix:PATH` and `--transport unix:PATH` alike: it answers the userland
/// host's initialisation (legacy LE commands only), and once scanning is enabled reports
/// three rounds of
/// - A (connectable, scannable): ADV_IND with flags and the Heart Rate service, then a
///   SCAN_RSP carrying ``hostileName``;
/// - B (non-connectable): ADV_NONCONN_IND named "B1", renamed "B2" in the last round.
/// Each `attune` run connects anew; every connection is served on threads of its own.
final class AdvertisingController: @unchecked Sendable {
    /// ESC and a screen clear, a newline, NUL, a quote, the C1 CSI (U+009B) and a byte
    /// that is not UTF-8.
    static let hostileNameBytes: [UInt8] = Array("Evil\u{1b}[2J\n".utf8) + [0x00, 0x22, 0x78, 0xC2, 0x9B, 0xFF]
    /// What the name decodes to: the invalid byte replaced.
    static let hostileName = "Evil\u{1b}[2J\n\u{0}\"x\u{9b}\u{FFFD}"
    static let a = BluetoothAddress(0xC1, 0x0A, 0x0A, 0x0A, 0x0A, 0x0A)
    static let b = BluetoothAddress(0xC2, 0x0B, 0x0B, 0x0B, 0x0B, 0x0B)

    let path: String
    private let listener: UnixSocketListener

    init() {
        let listener = UnixSocketListener(prefix: "attune-adv", backlog: 8)
        self.listener = listener
        path = listener.path
        Thread.detachNewThread {
            while true {
                let connection = listener.accept()
                if connection < 0 { return }
                Thread.detachNewThread { Self.serve(connection) }
            }
        }
    }

    func close() { listener.close() }

    static func report(_ address: BluetoothAddress, type: UInt8, data: [UInt8]) -> [UInt8] {
        H4Packet.advertisingReport(address, type: type, data: data)
    }

    static func name(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count + 1), 0x09] + bytes }

    static var rounds: [UInt8] {
        var out: [UInt8] = []
        for round in 0..<3 {
            out += report(a, type: 0x00, data: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18])
            out += report(a, type: 0x04, data: name(hostileNameBytes))
            out += report(b, type: 0x03, data: name(Array((round < 2 ? "B1" : "B2").utf8)))
        }
        return out
    }

    private static func serve(_ descriptor: Int32) {
        defer { Glibc.close(descriptor) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            pending += buffer[0..<n]
            // The host sends only commands here (indicator 0x01, opcode, length, parameters).
            while pending.count >= 4, pending.count >= 4 + Int(pending[3]) {
                let packet = Array(pending[0..<(4 + Int(pending[3]))])
                pending.removeFirst(packet.count)
                guard packet.first == 0x01, packet.count >= 4 else { continue }
                let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
                var out = H4Packet.commandComplete(opcode, ControllerInitAnswers.returnParameters(for: opcode))
                // LE Set Scan Enable, enabling: the advertisers answer.
                if opcode == 0x200C, packet.count >= 5, packet[4] == 1 { out += rounds }
                guard H4Packet.writeAll(descriptor, out[...]) else { return }
            }
        }
    }
}
