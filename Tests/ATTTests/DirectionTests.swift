import Testing
@testable import ATT

/// ``ATTClientPDU`` and ``ATTServerPDU`` split every PDU by who sends it; the bearer
/// sorts by ``ATTOpcode/kind`` before decoding, so the two must agree.
@Suite struct DirectionTests {
    @Test func everyPDUHasTheDirectionOfItsOpcodeKind() throws {
        var g = RoundTripTests.SplitMix(state: 0xD1EC)
        for pdu in RoundTripTests.generate(&g) {
            let wire = try pdu.encoded()
            switch pdu.direction {
            case .clientToServer(let p):
                #expect([.request, .command, .confirmation].contains(pdu.opcode.kind), "\(pdu)")
                #expect(ATTPDU(p) == pdu)
                #expect(p.opcode == pdu.opcode)
                #expect(p.description == pdu.description)
                #expect(try ATTClientPDU.decode(wire) == p)
                #expect(ATTServerPDU(pdu) == nil)
                #expect(throws: ATTDecodingError(.unknownOpcode, offset: 0, opcode: wire[0])) { try ATTServerPDU.decode(wire) }
                var out: [UInt8] = []
                try p.encode(into: &out)
                #expect(out == wire)
            case .serverToClient(let p):
                #expect([.response, .notification, .indication].contains(pdu.opcode.kind), "\(pdu)")
                #expect(ATTPDU(p) == pdu)
                #expect(p.opcode == pdu.opcode)
                #expect(p.description == pdu.description)
                #expect(try ATTServerPDU.decode(wire) == p)
                #expect(ATTClientPDU(pdu) == nil)
                #expect(throws: ATTDecodingError(.unknownOpcode, offset: 0, opcode: wire[0])) { try ATTClientPDU.decode(wire) }
                var out: [UInt8] = []
                try p.encode(into: &out)
                #expect(out == wire)
            }
        }
    }

    @Test func malformedPDUsFailAsATTPDUDoes() {
        // A Read Request one byte short: the typed decoder reports what ATTPDU reports.
        let short: [UInt8] = [0x0A, 0x03]
        var expected: ATTDecodingError?
        do { _ = try ATTPDU.decode(short) } catch { expected = error }
        #expect(expected != nil)
        do {
            _ = try ATTClientPDU.decode(short)
            Issue.record("decoded a short Read Request")
        } catch {
            #expect(error == expected)
        }
    }
}
