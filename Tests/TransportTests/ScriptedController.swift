#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HCI
import Transport

/// A controller played by the test on the far end of a real byte stream (a UNIX socket
/// or a pty): it answers the host's initialisation commands, then follows the test's lead.
/// It writes everything one byte at a time, so the host sees the worst partial reads.
final class ScriptedController: @unchecked Sendable {
    let descriptor: Int32
    private var decoder = H4StreamDecoder()
    private let lock = NSLock()

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes bytes one per write call.
    func write(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        for byte in bytes {
            var value = byte
            // A socket that the host closed must not raise SIGPIPE in the test process.
            if Glibc.send(descriptor, &value, 1, Int32(MSG_NOSIGNAL)) < 0 && errno == ENOTSOCK {
                _ = Glibc.write(descriptor, &value, 1)
            }
        }
    }

    /// Answers commands until the host has sent `count` of them (the init sequence is 9
    /// with a random address), or the stream ends.
    func answerCommands(count: Int) {
        var answered = 0
        var buffer = [UInt8](repeating: 0, count: 512)
        while answered < count {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            decoder.append(buffer[0..<n])
            while let packet = try? decoder.nextPacket() {
                guard packet.first == 0x01 else { continue }
                let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
                let parameters: [UInt8]
                switch opcode {
                case 0x1002: parameters = [0] + Array(repeating: 0, count: 64)
                case 0x1003: parameters = [0] + Array(repeating: 0, count: 8)
                case 0x2003: parameters = [0] + Array(repeating: 0, count: 8)
                case 0x2002: parameters = [0, 27, 0, 8]
                case 0x1009: parameters = [0, 6, 5, 4, 3, 2, 1]
                default: parameters = [0]
                }
                write([0x04, 0x0E, UInt8(3 + parameters.count), 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + parameters)
                answered += 1
            }
        }
    }

    func close() { Glibc.close(descriptor) }
}
