import ATT
import BluetoothCore

/// The GATT server-role conformance tester: Attune as the lower tester, the device it is
/// linked to as the IUT. A value with no I/O: the driver feeds it the IUT's ATT PDUs
/// (raw bytes) and the time, and performs the ``TesterAction``s it returns (PDUs to
/// send, the next wake-up, reports).
///
/// It first exchanges MTU and discovers the whole database (services, includes,
/// characteristics, descriptors, readable values), then runs each test in catalog order,
/// picking the handles that fit the test's precondition.
///
/// ```swift
/// var tester = ServerConformanceTester(tests: ServerTestCatalog.all)
/// var actions = tester.start(at: now)
/// // send each .send, sleep until .wake, then: actions = tester.receive(pdu, at: now)
/// ```
public struct ServerConformanceTester: Sendable {
    /// The tester's own parameters.
    public struct Configuration: Hashable, Sendable {
        /// The Client Rx MTU of the tester's Exchange MTU Request. Small on purpose: it
        /// makes ordinary values long enough to need Read Blob and Prepare Write.
        public var clientRxMTU: UInt16 = 64
        /// The ATT transaction timeout (Vol 3 Part F §3.3.3).
        public var transactionTimeout: Duration = .seconds(30)
        /// How long a test waits for a notification or indication the IUT sends on its own.
        public var pushTimeout: Duration = .seconds(10)
        /// How many times the run asks for a new link (after a lost link or a transaction
        /// timeout) before it gives up and ends every remaining test inconclusive. Bounds a
        /// run against an IUT that never answers to a few transaction timeouts.
        public var maximumLinkRestarts = 3
        public init() {}
    }

    /// What the tester waits for.
    enum Awaiting: Sendable {
        case response(deadline: MonotonicTime)
        case push(AttributeHandle, indication: Bool, deadline: MonotonicTime)
    }

    enum State: Sendable {
        case idle
        /// Running one discovery walk; `remaining` follow it.
        case discovering(DiscoveryWalk, remaining: [DiscoveryWalk], Transcript, deadline: MonotonicTime)
        /// Running the test at `index` of ``tests``.
        case testing(index: Int, Transcript, Awaiting)
        /// The link is gone (lost, or dropped after a transaction timeout); the run goes on
        /// at test `next` once the driver reports a new one.
        case awaitingLink(next: Int)
        /// On a new link, the tester's Exchange MTU before test `next`: each link allows one
        /// (Vol 3 Part F §3.4.2.1), and the tests judge by the ATT_MTU it sets.
        case reexchangingMTU(next: Int, Transcript, deadline: MonotonicTime)
        case finished
    }

    public let configuration: Configuration
    /// The tests to run, in order.
    public let tests: [ServerTestCase]
    /// What discovery found.
    public private(set) var profile = IUTProfile()
    /// The reports of the tests that ended so far.
    public private(set) var reports: [ConformanceTestReport] = []
    private(set) var state: State = .idle
    /// How many new links the run has asked for.
    private(set) var linkRestarts = 0

    public init(tests: [ServerTestCase], configuration: Configuration = Configuration()) {
        self.tests = tests
        self.configuration = configuration
    }

    /// True once every test has a report.
    public var isFinished: Bool { if case .finished = state { true } else { false } }

    /// Begins with the tester's Exchange MTU.
    public mutating func start(at now: MonotonicTime) -> [TesterAction] {
        guard case .idle = state else { return [] }
        var out: [TesterAction] = []
        let walks: [DiscoveryWalk] = [.services(primary: true), .services(primary: false), .includes, .characteristics, .attributes]
        continueDiscovery(.exchangeMTU(configuration.clientRxMTU), remaining: walks, Transcript(), now, &out)
        return out
    }

    /// One ATT PDU from the IUT.
    public mutating func receive(_ pdu: [UInt8], at now: MonotonicTime) -> [TesterAction] {
        var out: [TesterAction] = []
        let opcode = pdu.first.map { ATTOpcode($0) }
        // An indication is confirmed whatever runs, or the IUT could send nothing more
        // (Vol 3 Part F §3.4.7.2); a test waiting for it also records both.
        if opcode == .handleValueIndication { out.append(.send([ATTOpcode.handleValueConfirmation.rawValue])) }
        let isPush = opcode == .handleValueIndication || opcode == .handleValueNotification
            || opcode == .multipleHandleValueNotification
        switch state {
        case .idle, .finished, .awaitingLink:
            break
        case .reexchangingMTU(let next, var t, _):
            if isPush { break }
            t.received(pdu)
            if case .exchangeMTUResponse(let r)? = PDUCoding.decoded(pdu) {
                profile.mtu = ATTBearer.negotiated(client: configuration.clientRxMTU, server: r.serverRxMTU)
            } else {
                // Declined or garbled: the new link keeps the default ATT_MTU.
                profile.mtu = ATTBearer.defaultMTU
            }
            runTest(next, Transcript(), now, &out)
        case .discovering(let walk, let remaining, var t, let deadline):
            if isPush {
                // Not recorded: an IUT flooding pushes cannot grow the transcript.
                t.ignoredPush()
                state = .discovering(walk, remaining: remaining, t, deadline: deadline)
                break
            }
            t.received(pdu)
            continueDiscovery(walk, remaining: remaining, t, now, &out)
        case .testing(let index, var t, .push(let handle, let indication, let pushDeadline)):
            let expected: ATTOpcode = indication ? .handleValueIndication : .handleValueNotification
            if opcode == expected, pdu.count >= 3, UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == handle.rawValue {
                t.received(pdu)
                if indication { t.sent([ATTOpcode.handleValueConfirmation.rawValue]) }
                runTest(index, t, now, &out)
            } else if isPush {
                t.ignoredPush()
                state = .testing(index: index, t, .push(handle, indication: indication, deadline: pushDeadline))
            } else {
                t.received(pdu)
                finishTest(index, .fail("the IUT sent \(PDUCoding.name(pdu)) with no request outstanding (Vol 3 Part F §3.3.2)"),
                           t, now, &out)
            }
        case .testing(let index, var t, .response(let deadline)):
            if isPush {
                t.ignoredPush()
                state = .testing(index: index, t, .response(deadline: deadline))
                break
            }
            t.received(pdu)
            runTest(index, t, now, &out)
        }
        return out
    }

    /// The time passed; a deadline that is due fires.
    public mutating func tick(at now: MonotonicTime) -> [TesterAction] {
        var out: [TesterAction] = []
        switch state {
        case .idle, .finished, .awaitingLink:
            break
        case .reexchangingMTU(let next, _, let deadline):
            guard deadline <= now else { break }
            restartLink(next: next, reason: "the IUT did not answer the tester's Exchange MTU on a new link within "
                            + "\(configuration.transactionTimeout)", now, &out)
        case .discovering(let walk, _, let t, let deadline):
            guard deadline <= now else { break }
            let request = t.exchange.last.map { PDUCoding.name($0.bytes) } ?? "a request"
            let reason = "the IUT did not answer \(request) within \(configuration.transactionTimeout) during the tester's discovery; "
                + "no request may follow a transaction timeout on this bearer (Vol 3 Part F §3.3.3)"
            if case .exchangeMTU = walk { profile.mtuExchange = t.exchange }
            abandon(from: 0, reason: reason, timedOutMTU: { if case .exchangeMTU = walk { true } else { false } }(), now, &out)
        case .testing(let index, let t, .response(let deadline)):
            guard deadline <= now else { break }
            let request = t.exchange.last { $0.direction == .testerToIUT }.map { PDUCoding.name($0.bytes) } ?? "a request"
            reports.append(ConformanceTestReport(id: tests[index].id, verdict: .fail(
                "the IUT did not answer \(request) within \(configuration.transactionTimeout): every request has a response "
                    + "(Vol 3 Part F §3.3.2), and the transaction timed out (§3.3.3)"), exchange: t.exchange))
            out.append(.report(reports[reports.count - 1]))
            // No request may follow a timeout on this bearer (§3.3.3): the run goes on over a new link.
            restartLink(next: index + 1, reason: "an earlier test's transaction timed out, and no request may follow on that "
                            + "bearer (Vol 3 Part F §3.3.3)", now, &out)
        case .testing(let index, var t, .push(_, _, let deadline)):
            guard deadline <= now else { break }
            t.append(.pushWaitExpired)
            runTest(index, t, now, &out)
        }
        return out
    }

    /// The link ended: the test running and every later one are inconclusive.
    public mutating func linkClosed(at now: MonotonicTime, reason: String) -> [TesterAction] {
        var out: [TesterAction] = []
        switch state {
        case .idle, .discovering:
            abandon(from: 0, reason: "the link closed during discovery: \(reason)", timedOutMTU: false, now, &out)
        case .testing(let index, _, _):
            abandon(from: index, reason: "the link closed: \(reason)", timedOutMTU: false, now, &out)
        case .awaitingLink(let next), .reexchangingMTU(let next, _, _):
            abandon(from: next, reason: "the link closed and no new one could be opened: \(reason)", timedOutMTU: false, now, &out)
        case .finished:
            break
        }
        return out
    }

    /// The link was lost mid-run (the IUT disconnected). The test running ends
    /// inconclusive, and the tester asks for a new link (``TesterAction/restartLink(reason:)``)
    /// to go on with the next one; a loss during discovery ends the run, since no test can
    /// pick its handles without it.
    public mutating func linkLost(at now: MonotonicTime, reason: String) -> [TesterAction] {
        var out: [TesterAction] = []
        switch state {
        case .idle, .discovering:
            abandon(from: 0, reason: "the link was lost during discovery: \(reason)", timedOutMTU: false, now, &out)
        case .testing(let index, let t, _):
            reports.append(ConformanceTestReport(id: tests[index].id, verdict: .inconclusive(
                "the link was lost during the test: \(reason)\(t.droppedNote)"), exchange: t.exchange))
            out.append(.report(reports[reports.count - 1]))
            restartLink(next: index + 1, reason: "the link was lost: \(reason)", now, &out)
        case .reexchangingMTU(let next, _, _):
            restartLink(next: next, reason: "the link was lost again: \(reason)", now, &out)
        case .awaitingLink, .finished:
            break
        }
        return out
    }

    /// A new link is up after ``TesterAction/restartLink(reason:)``: the tester exchanges
    /// MTU on it, then runs the next test.
    public mutating func linkRestored(at now: MonotonicTime) -> [TesterAction] {
        guard case .awaitingLink(let next) = state else { return [] }
        var out: [TesterAction] = []
        let request = PDUCoding.bytes(.exchangeMTURequest(ExchangeMTURequest(clientRxMTU: configuration.clientRxMTU)))
        var t = Transcript()
        t.sent(request)
        let deadline = now + configuration.transactionTimeout
        state = .reexchangingMTU(next: next, t, deadline: deadline)
        out.append(.send(request))
        out.append(.wake(at: deadline))
        return out
    }

    /// Asks the driver for a new link to go on at test `next`, or, past
    /// ``Configuration/maximumLinkRestarts``, ends every remaining test inconclusive.
    private mutating func restartLink(next: Int, reason: String, _ now: MonotonicTime, _ out: inout [TesterAction]) {
        guard next < tests.count else {
            state = .finished
            out.append(.finished)
            return
        }
        guard linkRestarts < configuration.maximumLinkRestarts else {
            abandon(from: next, reason: "\(reason); the run gave up after \(linkRestarts) new links", timedOutMTU: false, now, &out)
            return
        }
        linkRestarts += 1
        state = .awaitingLink(next: next)
        out.append(.restartLink(reason: reason))
    }


    // MARK: - Discovery

    private mutating func continueDiscovery(_ walk: DiscoveryWalk, remaining: [DiscoveryWalk], _ t: Transcript,
                                            _ now: MonotonicTime, _ out: inout [TesterAction]) {
        var walk = walk, remaining = remaining, t = t
        while true {
            if let request = walk.nextRequest(t, mtu: profile.mtu) {
                t.sent(request)
                let deadline = now + configuration.transactionTimeout
                state = .discovering(walk, remaining: remaining, t, deadline: deadline)
                out.append(.send(request))
                out.append(.wake(at: deadline))
                return
            }
            walk.absorb(t, into: &profile, clientRxMTU: configuration.clientRxMTU)
            if case .attributes = walk {
                // Values last: they need the characteristics and descriptors found.
                remaining += surveyTargets().map(DiscoveryWalk.value)
            }
            guard !remaining.isEmpty else { break }
            walk = remaining.removeFirst()
            t = Transcript()
        }
        runTest(0, Transcript(), now, &out)
    }

    /// Every characteristic value with the Read property and every descriptor.
    private func surveyTargets() -> [AttributeHandle] {
        profile.characteristics.flatMap { c in
            (c.properties.contains(.read) ? [c.valueHandle] : []) + c.descriptors.map(\.handle)
        }
    }

    // MARK: - Tests

    private mutating func runTest(_ index: Int, _ transcript: Transcript, _ now: MonotonicTime, _ out: inout [TesterAction]) {
        guard index < tests.count else {
            state = .finished
            out.append(.finished)
            return
        }
        var t = transcript
        if t.entries.isEmpty, tests[index].judgesMTUExchange {
            for p in profile.mtuExchange { t.append(.pdu(p)) }
        }
        while true {
            switch tests[index].step(profile, t) {
            case .request(let bytes):
                t.sent(bytes)
                let deadline = now + configuration.transactionTimeout
                state = .testing(index: index, t, .response(deadline: deadline))
                out.append(.send(bytes))
                out.append(.wake(at: deadline))
                return
            case .command(let bytes):
                t.sent(bytes)
                out.append(.send(bytes))
            case .awaitResponse:
                let deadline = now + configuration.transactionTimeout
                state = .testing(index: index, t, .response(deadline: deadline))
                out.append(.wake(at: deadline))
                return
            case .awaitPush(let handle, let indication):
                let deadline = now + configuration.pushTimeout
                state = .testing(index: index, t, .push(handle, indication: indication, deadline: deadline))
                out.append(.wake(at: deadline))
                return
            case .finish(let verdict):
                finishTest(index, verdict, t, now, &out)
                return
            }
        }
    }

    private mutating func finishTest(_ index: Int, _ verdict: ConformanceTestVerdict, _ t: Transcript,
                                     _ now: MonotonicTime, _ out: inout [TesterAction]) {
        reports.append(ConformanceTestReport(id: tests[index].id, verdict: verdict.noting(t.droppedNote), exchange: t.exchange))
        out.append(.report(reports[reports.count - 1]))
        runTest(index + 1, Transcript(), now, &out)
    }

    /// Ends the run: every test from `index` on gets `reason` as inconclusive, except
    /// the MTU test when it was the tester's own exchange that timed out.
    private mutating func abandon(from index: Int, reason: String, timedOutMTU: Bool, _ now: MonotonicTime,
                                  _ out: inout [TesterAction]) {
        for test in tests.dropFirst(index) {
            let report: ConformanceTestReport
            if timedOutMTU, test.judgesMTUExchange {
                report = ConformanceTestReport(id: test.id, verdict: .fail(reason), exchange: profile.mtuExchange)
            } else {
                report = ConformanceTestReport(id: test.id, verdict: .inconclusive(reason), exchange: [])
            }
            reports.append(report)
            out.append(.report(report))
        }
        state = .finished
        out.append(.finished)
    }
}
