import ATT
import Testing
@testable import GATT

/// A server answering with random bytes: the client must neither crash nor hang, and
/// every procedure must end (completed, failed, or failed by the bearer closing).
@Suite("Client against random server answers")
struct ClientRandomServerTests {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let opcodes: [UInt8] = [0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x1B, 0x1D, 0x21, 0x23]

    @Test func randomAnswersAlwaysTerminate() {
        var rng = SplitMix64(state: 0xA77E)
        var total = 0
        defer { #expect(total > 500, "the random server should drive procedures some way") }
        for round in 0..<300 {
            var h = ClientHarness(configuration: GATTClientConfiguration(discoversOnStart: true))
            let read = h.perform(.readLongValue(3))
            var steps = 0
            while let request = h.sent.last, steps < 2_000 {
                h.sent.removeAll()
                let length = Int.random(in: 0...30, using: &rng)
                // Mostly the right response opcode (so procedures go deep), sometimes an
                // Error Response for it, sometimes anything at all.
                let dice = Int.random(in: 0..<20, using: &rng)
                let opcode: UInt8 = dice < 15 ? request[0] &+ 1 : dice < 17 ? 0x01 : Self.opcodes.randomElement(using: &rng)!
                var pdu = [opcode]
                if opcode == 0x01 { pdu += [request[0], 1, 0, UInt8.random(in: 1...0x12, using: &rng)] }
                // Bias the handle bytes towards small values so that some answers are valid.
                for i in 0..<(opcode == 0x01 ? 0 : length) { pdu.append(i < 4 ? UInt8.random(in: 0...8, using: &rng) : UInt8.random(in: 0...255, using: &rng)) }
                h.receive(pdu)
                steps += 1
            }
            #expect(steps < 2_000, "round \(round) did not settle")
            total += steps
            // Either the read finished, or the client is still waiting on a request it sent
            // (the last answer was a notification), which the transaction timeout ends.
            if h.results[read] == nil {
                h.advance(by: 31)
                #expect(h.results[read] != nil || h.closed != nil, "round \(round)")
            }
        }
    }
}
