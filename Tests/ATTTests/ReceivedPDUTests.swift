import Testing
@testable import ATT

/// ``ATTReceivedPDU`` is the one decode a received PDU takes: its role must be the one
/// ``ATTOpcode/kind`` names, well-formed or not, and what it decodes must be what the
/// flat ``ATTPDU`` holds.
@Suite struct ReceivedPDUTests {
    /// The role the decode gave, in the terms of ``ATTOpcode/Kind``; nil for no bytes.
    static func kind(_ r: ATTReceivedPDU) -> ATTOpcode.Kind? {
        switch r {
        case .request: .request
        case .command: .command
        case .confirmation: .confirmation
        case .response: .response
        case .notification, .multipleNotification: .notification
        case .indication: .indication
        case .unknown: .unknown
        case .empty: nil
        }
    }

    @Test func everyOpcodeAloneHasTheRoleOfItsKind() {
        for byte in UInt8.min...UInt8.max {
            let received = ATTReceivedPDU(decoding: [byte][...])
            #expect(Self.kind(received) == ATTOpcode(byte).kind, "opcode \(byte)")
        }
        #expect(ATTReceivedPDU(decoding: []) == .empty)
    }

    @Test func wellFormedPDUsDecodeToWhatATTPDUHolds() throws {
        var g = RoundTripTests.SplitMix(state: 0x5EED)
        for pdu in RoundTripTests.generate(&g) {
            let received = ATTReceivedPDU(decoding: try pdu.encoded()[...])
            #expect(Self.kind(received) == pdu.opcode.kind, "\(pdu)")
            #expect(try received.decoded() == pdu.direction, "\(pdu)")
        }
    }

    @Test func aMalformedRequestKeepsItsRoleAndOpcode() {
        // A Read Request one byte short.
        guard case .request(let opcode, .failure(let error)) = ATTReceivedPDU(decoding: [0x0A, 0x03][...]) else {
            Issue.record("not a failed request")
            return
        }
        #expect(opcode == .readRequest)
        #expect(error.opcode == 0x0A)
    }
}
