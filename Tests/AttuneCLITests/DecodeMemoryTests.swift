import Foundation
import Testing

/// `attune decode` streams a capture: its peak RSS, measured for its own process, stays
/// flat however long the file is. (In the test process, peak RSS moves with whatever
/// other test runs beside it, so it cannot tell.)
@Suite struct DecodeMemoryTests {
    /// A btsnoop H4 file of `records` ATT notifications, each split into two ACL
    /// fragments, written in chunks so the test holds no whole file either.
    static func writeCapture(to path: String, notifications: Int) throws {
        guard let file = fopen(path, "w") else { throw CocoaError(.fileWriteUnknown) }
        defer { fclose(file) }
        var out: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        let frame: [UInt8] = [63, 0, 0x04, 0x00, 0x1B, 0x12, 0x00] + [UInt8](repeating: 0x5A, count: 60)
        for n in 0..<notifications {
            for (boundary, part) in [(0x20 as UInt8, frame[0..<27]), (0x10, frame[27...])] {
                let packet: [UInt8] = [0x40, boundary, UInt8(part.count), 0] + part
                let length = UInt32(packet.count + 1)
                for v in [length, length, 1, 0] { out += withUnsafeBytes(of: v.bigEndian, Array.init) }
                out += [0x00, 0xE0, 0x3A, 0xB4, 0x4A, 0x67, 0x60, 0x00, 0x02] + packet
            }
            if out.count > 1 << 16 || n == notifications - 1 {
                _ = out.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                out.removeAll(keepingCapacity: true)
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func decodeOfALongCaptureStaysInFlatMemory() async throws {
        let short = AttuneProcess.temporaryFile(".btsnoop"), long = AttuneProcess.temporaryFile(".btsnoop")
        defer { unlink(short); unlink(long) }
        try Self.writeCapture(to: short, notifications: 1_000)
        try Self.writeCapture(to: long, notifications: 150_000)   // about 25 MB
        let small = try await AttuneProcess.run(["decode", short, "--summary"])
        let large = try await AttuneProcess.run(["decode", long, "--summary"])
        #expect(small.status == 0 && large.status == 0, "\(small.stderr) \(large.stderr)")
        #expect(small.peakKilobytes > 1024, "the peak RSS was read")
        let grown = large.peakKilobytes - small.peakKilobytes
        #expect(grown < 16 * 1024, "decode's peak RSS: \(small.peakKilobytes) kB for 1,000 notifications, \(large.peakKilobytes) kB for 150,000")
    }
}
