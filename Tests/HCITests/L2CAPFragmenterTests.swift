import Testing
@testable import HCI

/// The fragmenter writes the basic frame's header and payload straight into the ACL
/// packets; what it sends must be the frame cut as Vol 3 Part A §7.2.1 says.
@Suite struct L2CAPFragmenterTests {
    /// The packets as the spec describes them: the whole frame built first, then cut.
    static func reference(handle: UInt16, channel: UInt16, payload: [UInt8], step: Int) -> [[UInt8]] {
        let frame = [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(channel & 0xFF), UInt8(channel >> 8)]
            + payload
        var packets: [[UInt8]] = []
        var offset = 0
        repeat {
            let end = min(frame.count, offset + step)
            let word = handle & 0x0FFF | (offset == 0 ? 0 : 0x1000)
            packets.append([0x02, UInt8(word & 0xFF), UInt8(word >> 8), UInt8((end - offset) & 0xFF), UInt8((end - offset) >> 8)]
                           + frame[offset..<end])
            offset = end
        } while offset < frame.count
        return packets
    }

    @Test func everyCutMatchesTheWholeFrameCut() {
        for step in [1, 2, 3, 4, 5, 7, 27, 251] {
            for length in [0, 1, 3, 4, 5, 22, 23, 100, 300] {
                let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) }
                // A slice that does not start at index 0, as a PDU inside a larger buffer does.
                let buffer = [0xEE, 0xEE] + payload + [0xEE]
                let got = L2CAPFragmenter.fragments(handle: 0x0042, channel: .attribute, payload: buffer[2..<(2 + length)],
                                                    maximumFragmentLength: step)
                #expect(got == Self.reference(handle: 0x0042, channel: 0x0004, payload: payload, step: step),
                        "step \(step) length \(length)")
            }
        }
    }
}
