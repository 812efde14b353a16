#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Transport

/// A controller played by a test on the far end of a real byte stream (a UNIX socket
/// or a pty): it answers the host's initialisation commands, then follows the test's lead.
/// It writes everything one byte at a time, so the host sees the worst partial reads.
public final class ScriptedController: @unchecked Sendable {
    public let descriptor: Int32
    private var decoder = H4StreamDecoder()
    private let lock = NSLock()

    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes bytes one per write call.
    public func write(_ bytes: [UInt8]) {
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

    /// Answers commands (``ControllerInitAnswers``) until the host has sent `count` of
    /// them (the init sequence is 9 with a random address), or the stream ends.
    public func answerCommands(count: Int) {
        var answered = 0
        var buffer = [UInt8](repeating: 0, count: 512)
        while answered < count {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            decoder.append(buffer[0..<n])
            while let packet = try? decoder.nextPacket() {
                guard let complete = ControllerInitAnswers.commandComplete(answering: packet) else { continue }
                write(complete)
                answered += 1
            }
        }
    }

    public func close() { Glibc.close(descriptor) }
}
