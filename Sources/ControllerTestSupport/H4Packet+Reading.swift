#if canImport(Glibc)
import Glibc
#endif
import Transport

extension H4Packet {
    /// Reads the host's H4 packets from `descriptor` (blocking) until the stream ends,
    /// handing each whole packet to `body`: the loop of a scripted controller's thread.
    /// Each read takes up to `readSize` bytes (a flood's controller reads in large bites).
    public static func forEachPacket(from descriptor: Int32, readSize: Int = 2048, _ body: ([UInt8]) -> Void) {
        var decoder = H4StreamDecoder()
        var buffer = [UInt8](repeating: 0, count: max(1, readSize))
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            decoder.append(buffer[0..<n])
            while let packet = try? decoder.nextPacket() { body(packet) }
        }
    }
}
