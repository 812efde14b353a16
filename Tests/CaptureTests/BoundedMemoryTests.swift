import Capture
import Foundation
import HCI
import Testing
import WaitTestSupport

/// Reading never holds more than a bounded window of the file, however long it is.
@Suite struct BoundedMemoryTests {
    /// Produces a btsnoop H4 file of `records` fragmented ATT notifications on the fly, so
    /// the test itself holds no file in memory.
    struct GeneratedCapture: CaptureInput {
        var remaining: Int
        var pending: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        var produced = 0

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
            while pending.count < buffer.count && remaining > 0 {
                // A 60-byte notification split into a 27-byte first fragment and a continuation.
                let frame: [UInt8] = [63, 0, 0x04, 0x00, 0x1B, 0x12, 0x00] + [UInt8](repeating: 0x5A, count: 60)
                for (boundary, part) in [(0x20 as UInt8, frame[0..<27]), (0x10, frame[27...])] {
                    let packet: [UInt8] = [0x40, boundary, UInt8(part.count), 0] + part
                    let length = UInt32(packet.count + 1)
                    for v in [length, length, 1, 0] { pending += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
                    pending += [0x00, 0xE0, 0x3A, 0xB4, 0x4A, 0x67, 0x60, 0x00, 0x02] + packet
                }
                remaining -= 2
            }
            let n = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
            pending.removeFirst(n)
            produced += n
            return n
        }
    }

    /// Every record of a 25 MB capture streams through, fragments joined. The memory
    /// bound is measured where nothing else runs: `attune decode` in a process of its own
    /// (AttuneCLITests' `decodeOfALongCaptureStaysInFlatMemory`); this process's peak
    /// RSS moves with whatever test runs beside this one.
    @Test func longCaptureStreamsThrough() async throws {
        // Off the cooperative pool: a long synchronous loop would hold one of its threads.
        try await offPool {
            let records = 300_000 // about 25 MB of capture
            var extractor = ATTPDUExtractor(reader: try CaptureReader(input: GeneratedCapture(remaining: records)))
            var pdus = 0
            while let pdu = try extractor.next() {
                pdus += 1
                #expect(pdu.bytes.count == 63 || pdus > 1)
            }
            #expect(pdus == records / 2)
            #expect(extractor.drops == 0)
        }
    }
}
