import Testing
@testable import ATT
import HexTestSupport

/// The sequential protocol of Vol 3 Part F §3.3, driven with explicit time.
@Suite struct BearerTests {
    var bearer = ATTBearer(rxMTU: 512)
    var out: [UInt8] = []
    let t0 = MonotonicTime.zero

    mutating func feed(_ hex: String, at time: MonotonicTime = .zero) -> ATTBearerEvent {
        out.removeAll()
        return bearer.receive(bytes(hex)[...], at: time, into: &out)
    }

    @Test mutating func mtuDefaultsTo23AndAppliesAfterOurResponse() throws {
        #expect(bearer.mtu == 23)
        guard case .request(.exchangeMTURequest(let req)) = feed("020002") else { Issue.record("no request"); return }
        #expect(req.clientRxMTU == 512)
        #expect(bearer.mtu == 23, "the new MTU applies only after the response")
        try bearer.sendResponse(ExchangeMTUResponse(serverRxMTU: 100), into: &out)
        #expect(out == bytes("036400"))
        #expect(bearer.mtu == 100)
    }

    @Test mutating func aSecondExchangeMTUIsAnsweredButLeavesTheMTU() throws {
        _ = feed("024000")
        try bearer.sendResponse(ExchangeMTUResponse(serverRxMTU: 512), into: &out)
        #expect(bearer.mtu == 64)
        guard case .request(.exchangeMTURequest) = feed("020502") else { Issue.record("no second request"); return }
        try bearer.sendResponse(ExchangeMTUResponse(serverRxMTU: 512), into: &out)
        #expect(bearer.mtu == 64, "ATT_MTU is set once per link (Vol 3 Part F §3.4.2.1–§3.4.2.2)")
    }

    @Test mutating func mtuNeverBelow23() throws {
        _ = feed("021000")
        try bearer.sendResponse(ExchangeMTUResponse(serverRxMTU: 512), into: &out)
        #expect(bearer.mtu == 23)
    }

    @Test mutating func mtuAppliesWhenWeReceiveTheResponse() throws {
        try bearer.sendRequest(ExchangeMTURequest(clientRxMTU: 512), into: &out, at: t0)
        #expect(bearer.mtu == 23)
        guard case .response(.exchangeMTUResponse, request: .exchangeMTURequest) = feed("03f700") else {
            Issue.record("no response"); return
        }
        #expect(bearer.mtu == 247)
        #expect(bearer.outstandingRequest == nil)
        #expect(bearer.deadline == nil)
    }

    @Test mutating func refusesSecondConcurrentRequest() throws {
        try bearer.sendRequest(ReadRequest(handle: 3), into: &out, at: t0)
        #expect(throws: ATTBearerError.requestOutstanding(.readRequest)) {
            try bearer.sendRequest(ReadRequest(handle: 4), into: &out, at: t0)
        }
        _ = feed("0b0102")
        try bearer.sendRequest(ReadRequest(handle: 4), into: &out, at: t0)
    }

    @Test mutating func errorResponseCompletesOurRequest() throws {
        try bearer.sendRequest(ReadRequest(handle: 3), into: &out, at: t0)
        guard case .response(.errorResponse(let e), request: .readRequest) = feed("010a030002") else {
            Issue.record("expected error response"); return
        }
        #expect(e.errorCode == .readNotPermitted)
    }

    @Test mutating func malformedResponseCompletesOurRequestAsFailed() throws {
        try bearer.sendRequest(ReadBlobRequest(handle: 3, offset: 0), into: &out, at: t0)
        guard case .malformedResponse(_, request: .readBlobRequest) = feed("010c03") else {
            Issue.record("expected malformed response"); return
        }
        #expect(bearer.outstandingRequest == nil)
    }

    @Test mutating func requestWhilePeerRequestPendingClosesSilently() {
        guard case .request = feed("0a0300") else { Issue.record("no request"); return }
        guard case .closed(.requestWhileRequestPending(.readRequest), _, _) = feed("0a0400") else {
            Issue.record("expected close"); return
        }
        #expect(out.isEmpty)
        #expect(bearer.isClosed)
        #expect(feed("0a0300") == .dropped)
        #expect(out.isEmpty)
    }

    @Test mutating func peerRequestAllowedWhileOurRequestOutstanding() throws {
        try bearer.sendRequest(ReadRequest(handle: 1), into: &out, at: t0)
        guard case .request = feed("0a0300") else { Issue.record("no request"); return }
        try bearer.sendErrorResponse(.readNotPermitted, handle: 3, into: &out)
        #expect(out == bytes("010a030002"))
    }

    @Test mutating func responseWithoutRequestIsAViolation() {
        guard case .closed(.unexpectedResponse(.readResponse), nil, false) = feed("0b00") else {
            Issue.record("expected close"); return
        }
        #expect(out.isEmpty)
    }

    @Test mutating func confirmationWithoutIndicationIsAViolation() {
        guard case .closed(.unexpectedConfirmation, _, _) = feed("1e") else { Issue.record("expected close"); return }
        #expect(out.isEmpty)
    }

    @Test mutating func unknownRequestGetsRequestNotSupported() {
        guard case .handled = feed("bf00") else { Issue.record("expected handled"); return }
        #expect(out == bytes("01bf000006"))
        #expect(!bearer.isClosed)
    }

    @Test mutating func unknownCommandIsIgnored() {
        guard case .handled = feed("7f0102") else { Issue.record("expected handled"); return }
        #expect(out.isEmpty)
    }

    @Test mutating func malformedKnownRequestGetsInvalidPDU() {
        guard case .handled(let error?) = feed("0a03") else { Issue.record("expected handled"); return }
        #expect(error.opcode == 0x0a)
        #expect(out == bytes("010a000004"))
        // The request was answered, so the next one is fine.
        guard case .request = feed("0a0300") else { Issue.record("no request"); return }
    }

    @Test mutating func incomingIndicationIsConfirmedByTheBearer() {
        guard case .indication(let ind) = feed("1d0300aabb") else { Issue.record("expected indication"); return }
        #expect(ind.handle == 3)
        #expect(out == [0x1e])
    }

    @Test mutating func notificationsComeAsTheirOwnStructs() {
        // Decoded once: the event carries the notification itself, not a PDU to switch over again.
        guard case .notification(let n) = feed("1b0300aabb") else { Issue.record("expected notification"); return }
        #expect(n.handle == 3)
        #expect(Array(n.value) == [0xAA, 0xBB])
        guard case .multipleNotification(let m) = feed("2303000100aa04000200bbcc") else {
            Issue.record("expected multiple notification"); return
        }
        #expect(m.entries.map(\.handle) == [3, 4])
        #expect(m.entries.map { Array($0.value) } == [[0xAA], [0xBB, 0xCC]])
        #expect(out.isEmpty, "notifications are not answered")
        guard case .handled(nil) = feed("1b0000aa") else { Issue.record("a malformed notification is ignored"); return }
    }

    @Test mutating func malformedIndicationIsStillConfirmed() {
        guard case .handled = feed("1d00") else { Issue.record("expected handled"); return }
        #expect(out == [0x1e])
    }

    @Test mutating func oneIndicationAtATimeAndConfirmationEndsIt() throws {
        try bearer.sendIndication(HandleValueIndication(handle: 3, value: [1]), into: &out, at: t0)
        #expect(bearer.deadline == t0 + .seconds(30))
        #expect(throws: ATTBearerError.indicationOutstanding) {
            try bearer.sendIndication(HandleValueIndication(handle: 3, value: [2]), into: &out, at: t0)
        }
        #expect(feed("1e") == .confirmation)
        #expect(bearer.deadline == nil)
        try bearer.sendIndication(HandleValueIndication(handle: 3, value: [2]), into: &out, at: t0)
    }

    @Test mutating func indicationTimeoutClosesAndFailsPending() throws {
        try bearer.sendRequest(ReadRequest(handle: 1), into: &out, at: .seconds(10))
        try bearer.sendIndication(HandleValueIndication(handle: 3, value: [1]), into: &out, at: .seconds(5))
        #expect(bearer.deadline == .seconds(35))
        #expect(bearer.tick(at: .seconds(34.9)) == nil)
        guard case .closed(.indicationTimeout, failedRequest: .readRequest, failedIndication: true)? =
            bearer.tick(at: .seconds(35)) else { Issue.record("expected timeout"); return }
        #expect(bearer.deadline == nil)
        #expect(throws: ATTBearerError.closed(.indicationTimeout)) {
            try bearer.sendNotification(HandleValueNotification(handle: 3, value: [1]), into: &out)
        }
        #expect(feed("1e") == .dropped)
        #expect(out.isEmpty)
    }

    @Test mutating func requestTimeoutCloses() throws {
        try bearer.sendRequest(ReadRequest(handle: 1), into: &out, at: t0)
        guard case .closed(.requestTimeout(.readRequest), failedRequest: .readRequest, failedIndication: false)? =
            bearer.tick(at: .seconds(30)) else { Issue.record("expected timeout"); return }
        #expect(bearer.tick(at: .seconds(60)) == nil)
    }

    @Test mutating func responsesMustMatchThePendingRequest() throws {
        _ = feed("0a0300")
        #expect(throws: ATTBearerError.wrongResponse(pending: .readRequest, offered: .writeResponse)) {
            try bearer.sendResponse(WriteResponse(), into: &out)
        }
        #expect(throws: ATTBearerError.self) {
            try bearer.sendResponse(ReadResponse(value: [UInt8](repeating: 0, count: 30)), into: &out)
        }
        try bearer.sendResponse(ReadResponse(value: [1, 2]), into: &out)
        #expect(throws: ATTBearerError.noRequestToAnswer) {
            try bearer.sendResponse(ReadResponse(value: [1, 2]), into: &out)
        }
    }

    @Test func monotonicTimeArithmetic() {
        #expect(MonotonicTime.zero + .milliseconds(1500) == MonotonicTime(nanoseconds: 1_500_000_000))
        #expect(MonotonicTime(nanoseconds: .max - 1) + .seconds(10) == MonotonicTime(nanoseconds: .max))
        #expect(MonotonicTime.seconds(2).duration(since: .seconds(1)) == .seconds(1))
    }
}
