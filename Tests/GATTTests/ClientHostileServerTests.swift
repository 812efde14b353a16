import ATT
import Testing
@testable import GATT

/// A server that lies must not make the client loop, grow, crash or hang: each case ends
/// the procedure with a typed error naming the PDU.
@Suite("Client against a hostile server")
struct ClientHostileServerTests {
    func violation(_ h: ClientHarness, _ id: GATTRequestID) -> ProtocolViolation? {
        if case let .protocolViolation(v)? = h.results[id]?.failure { return v }
        return nil
    }

    @Test func primaryDiscoveryWithNonIncreasingHandlesFails() {
        var h = ClientHarness()
        let id = h.perform(.discoverAllPrimaryServices())
        #expect(h.nextSent() == "100100ffff0028")
        h.receive(hex: "1106010005000018")          // 0x0001..0x0005
        #expect(h.nextSent() == "100600ffff0028")
        h.receive(hex: "1106010005000018")          // the same group again: would loop forever
        let v = violation(h, id)
        #expect(v?.opcode == .readByGroupTypeResponse)
        #expect(v?.pdu == parseHex("1106010005000018"))
        #expect(h.sent.isEmpty)
    }

    @Test func overlappingServiceRangesFail() {
        var h = ClientHarness()
        let id = h.perform(.discoverAllPrimaryServices())
        _ = h.nextSent()
        h.receive(hex: "110601000a000018" + "05000f000118")   // second starts inside the first
        guard case .overlappingRange? = violation(h, id)?.reason else { Issue.record("\(String(describing: h.results[id]))"); return }
    }

    @Test func handleZeroAndEndBelowStartAreMalformed() {
        var h = ClientHarness()
        let a = h.perform(.discoverAllPrimaryServices())
        _ = h.nextSent()
        h.receive(hex: "1106000005000018")          // handle 0
        guard case .malformedPDU(let e)? = h.results[a]?.failure else { Issue.record("expected malformed"); return }
        #expect(e.opcode == 0x11)
        let b = h.perform(.discoverAllPrimaryServices())
        _ = h.nextSent()
        h.receive(hex: "1106050001000018")          // end 0x0001 below start 0x0005
        guard case .malformedPDU(let e2)? = h.results[b]?.failure, case .invalidHandleRange = e2.reason else {
            Issue.record("expected invalid range, got \(String(describing: h.results[b]))"); return
        }
    }

    @Test func characteristicDiscoveryLoopFails() {
        var h = ClientHarness()
        let id = h.perform(.discoverAllCharacteristics(in: AttributeHandleRange(start: 1, end: 0x20)))
        #expect(h.nextSent() == "08010020000328")
        h.receive(hex: "0907" + "0200020300002a")
        #expect(h.nextSent() == "08030020000328")
        h.receive(hex: "0907" + "0200020300002a")   // declaration 0x0002 again
        guard case .nonIncreasingHandle? = violation(h, id)?.reason else { Issue.record("\(String(describing: h.results[id]))"); return }
    }

    @Test func descriptorOutsideRangeFails() {
        var h = ClientHarness()
        let id = h.perform(.discoverDescriptors(in: AttributeHandleRange(start: 4, end: 6)))
        #expect(h.nextSent() == "0404000600")
        h.receive(hex: "0501" + "09000229")
        guard case .handleOutOfRange? = violation(h, id)?.reason else { Issue.record("\(String(describing: h.results[id]))"); return }
    }

    @Test func attributeNotFoundEndsDiscoveryNormally() {
        var h = ClientHarness()
        let id = h.perform(.discoverAllPrimaryServices())
        _ = h.nextSent()
        h.receive(hex: "011001000a")
        #expect(h.results[id]?.success == .services([]))
    }

    @Test func truncatedResponseIsMalformed() {
        var h = ClientHarness()
        let id = h.perform(.discoverAllPrimaryServices())
        _ = h.nextSent()
        h.receive(hex: "110601000500")              // 4 of 6 bytes of the entry
        guard case .malformedPDU? = h.results[id]?.failure else { Issue.record("\(String(describing: h.results[id]))"); return }
        // The bearer is still usable afterwards.
        let next = h.perform(.readValue(3))
        #expect(h.nextSent() == "0a0300")
        h.receive(hex: "0b01")
        #expect(h.results[next]?.success == .value([1]))
    }

    @Test func wrongResponseOpcodeClosesTheBearer() {
        var h = ClientHarness()
        let a = h.perform(.readValue(3))
        let b = h.perform(.readValue(4))
        #expect(h.nextSent() == "0a0300")
        h.receive(hex: "13")                        // a Write Response to a Read Request
        // Every pending command fails with the violation that closed the bearer, naming
        // the PDU and what it should have been, not with a bare "closed".
        let expected = ProtocolViolation(.unexpectedResponse(expected: .readResponse), opcode: .writeResponse, pdu: [0x13])
        #expect(h.results[a]?.failure == .protocolViolation(expected))
        #expect(h.results[b]?.failure == .protocolViolation(expected))
        #expect(h.closed == .protocolViolation(expected))
        #expect(expected.description.contains("Write Response") && expected.description.contains("Read Response"))
        #expect(h.sent.isEmpty)
    }

    @Test func responseOverATTMTUIsRejected() {
        // The documented choice for the /512B vectors: a Read Response longer than
        // ATT_MTU is a protocol violation, never silently truncated.
        var h = ClientHarness(mtu: 512)
        let id = h.perform(.readLongValue(3))
        #expect(h.nextSent() == "0a0300")
        h.receive([0x0B] + [UInt8](repeating: 0xAB, count: 512))   // 513 bytes
        guard case let .exceedsATTMTU(length, mtu)? = violation(h, id)?.reason else {
            Issue.record("\(String(describing: h.results[id]))"); return
        }
        #expect(length == 513 && mtu == 512)
    }

    @Test func notificationOverATTMTUIsDroppedAndReported() {
        var h = ClientHarness()
        h.receive([0x1B, 0x03, 0x00] + [UInt8](repeating: 1, count: 21))   // 24 bytes at ATT_MTU 23
        guard case let .dropped(.protocolViolation(v))? = h.events.first, case .exceedsATTMTU(24, 23) = v.reason else {
            Issue.record("\(h.events)"); return
        }
        #expect(h.sent.isEmpty)
    }

    @Test func endlessLongReadIsBounded() {
        var h = ClientHarness()
        let id = h.perform(.readLongValue(3))
        var rounds = 0
        while h.results[id] == nil && rounds < 100 {
            _ = h.nextSent()
            h.receive([rounds == 0 ? 0x0B : 0x0D] + [UInt8](repeating: 1, count: 22))
            rounds += 1
        }
        guard case .valueTooLong? = violation(h, id)?.reason else { Issue.record("\(String(describing: h.results[id]))"); return }
        #expect(rounds < 30)
    }

    @Test func indicationFloodIsConfirmedWithoutGrowth() {
        var h = ClientHarness()
        for i in 0..<10_000 {
            h.receive([0x1D, 0x03, 0x00, UInt8(truncatingIfNeeded: i)])
            #expect(h.sent.count == 1 && h.sent[0] == [0x1E])
            h.sent.removeAll()
        }
        #expect(h.events.count == 10_000)
        #expect(h.connection.client.queuedCount == 0)
        #expect(h.closed == nil)
    }

    @Test func malformedIndicationIsStillConfirmed() {
        var h = ClientHarness()
        h.receive(hex: "1d00")                      // truncated handle
        #expect(h.nextSent() == "1e")
    }

    @Test func reliableWriteMismatchCancels() {
        var h = ClientHarness()
        let id = h.perform(.reliableWrite([PreparedWrite(handle: 7, value: [1, 2, 3])]))
        #expect(h.nextSent() == "1607000000010203")
        h.receive(hex: "1707000000010299")          // echo altered
        #expect(h.nextSent() == "1800")
        #expect(h.results[id] == nil)
        h.receive(hex: "19")
        guard case .preparedWriteMismatch? = violation(h, id)?.reason else { Issue.record("\(String(describing: h.results[id]))"); return }
    }

    @Test func unsolicitedResponseClosesBearer() {
        var h = ClientHarness()
        h.receive(hex: "0b0102")
        let expected = ProtocolViolation(.unsolicitedResponse, opcode: .readResponse, pdu: [0x0B, 0x01, 0x02])
        #expect(h.closed == .protocolViolation(expected))
        let id = h.perform(.readValue(1))
        #expect(h.results[id]?.failure == .protocolViolation(expected), "later commands say why the bearer is closed")
        #expect(h.sent.isEmpty)
    }

    @Test func unsolicitedConfirmationClosesTheBearerWithItsCause() {
        var h = ClientHarness()
        let id = h.perform(.readValue(1))
        h.receive(hex: "1e")                        // a confirmation; we sent no indication
        let expected = ProtocolViolation(.unsolicitedConfirmation, opcode: .handleValueConfirmation, pdu: [0x1E])
        #expect(h.results[id]?.failure == .protocolViolation(expected))
        #expect(h.closed == .protocolViolation(expected))
        #expect(expected.description.contains("a confirmation with no indication outstanding"))
    }
}

