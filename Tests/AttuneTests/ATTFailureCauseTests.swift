import Synchronization
import Testing
@testable import Attune
@testable import Transport

/// An ATT failure reaches the application with its cause: a transaction timeout, the
/// PDU that broke the protocol, or the disconnection with its reason. None of them may
/// end as "peripheral not connected".
@Suite("ATT failures keep their cause", .timeLimit(.minutes(10)))
struct ATTFailureCauseTests {
    /// The peer answers Exchange MTU and nothing else. The transaction timeout is
    /// shortened to 200 ms, so the test waits for the engine's own deadline to fire.
    @Test func unansweredRequestFailsWithTheTimeout() async throws {
        let radio = MemoryRadio()
        try RawATTPeer.start(on: radio) { pdu, _ in RawATTPeer.mtu(pdu) ?? [] }
        let (_, peripheral) = try await RawATTPeer.connect(radio, transactionTimeout: .milliseconds(200))
        let events = peripheral.lifecycleEvents
        async let firstRead = failure { () async throws(AttuneError) in try await peripheral.readValue(for: RawATTPeer.readable) }
        async let queuedRead = failure { () async throws(AttuneError) in try await peripheral.readValue(for: RawATTPeer.readable) }
        let (a, b) = await (firstRead, queuedRead)
        #expect(a == .attTimeout(request: .readRequest))
        #expect(b == .attTimeout(request: .readRequest), "a queued request fails with the same cause")
        #expect(a?.description.contains("ATT transaction timeout") == true)
        #expect(a?.description.contains("Read Request") == true)
        // The bearer is dead (Vol 3 Part F §3.3.3): the link goes with it, and says why.
        let down = try await first(events, "disconnected") {
            if case .disconnected = $0 { true } else { false }
        }
        #expect(down == .disconnected(.attBearerClosed(.requestTimeout(.readRequest)), reconnectAt: nil))
    }

    /// The same timeout during the discovery of `connect`: the connect fails with it,
    /// instead of succeeding on a closed bearer and leaving "not connected" for later.
    @Test func timeoutDuringConnectDiscoveryFailsTheConnect() async throws {
        let radio = MemoryRadio()
        let asked = Mutex<[UInt8]>([])
        try RawATTPeer.start(on: radio) { pdu, _ in
            if let mtu = RawATTPeer.mtu(pdu) { return mtu }
            asked.withLock { $0.append(pdu.first ?? 0) }
            return []
        }
        do {
            _ = try await RawATTPeer.connect(radio, transactionTimeout: .milliseconds(200), discover: true)
            Issue.record("connect succeeded although discovery timed out")
        } catch {
            let request = asked.withLock { $0.first }.map { ATTOpcode($0) }
            #expect(request != nil)
            #expect(error == .attTimeout(request: request))
        }
    }

    /// A Write Response to a Read Request: the bearer closes (a response must answer
    /// the request outstanding), and the error names both PDUs.
    @Test func wrongResponseOpcodeIsAProtocolViolationNamingThePDU() async throws {
        let radio = MemoryRadio()
        try RawATTPeer.start(on: radio) { pdu, _ in RawATTPeer.mtu(pdu) ?? (pdu.first == 0x0A ? [[0x13]] : []) }
        let (_, peripheral) = try await RawATTPeer.connect(radio)
        do {
            _ = try await peripheral.readValue(for: RawATTPeer.readable)
            Issue.record("a Write Response answered a Read Request")
        } catch .protocolError(let what) {
            #expect(what.contains("Write Response"), "names the PDU received: \(what)")
            #expect(what.contains("Read Response"), "names the PDU expected: \(what)")
            #expect(what.contains("13"), "shows the PDU's bytes: \(what)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// Garbage in the right place: an Error Response too short to decode fails the read
    /// as a protocol violation that names the PDU, and the link stays up.
    @Test func malformedResponseNamesThePDU() async throws {
        let radio = MemoryRadio()
        try RawATTPeer.start(on: radio) { pdu, _ in RawATTPeer.mtu(pdu) ?? (pdu.first == 0x0A ? [[0x01, 0x0A]] : []) }
        let (_, peripheral) = try await RawATTPeer.connect(radio)
        let error = await failure { () async throws(AttuneError) in try await peripheral.readValue(for: RawATTPeer.readable) }
        guard case .protocolError(let what)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(what.hasPrefix("malformed PDU: "), "\(what)")
        #expect(what.contains("Error Response"), "names the PDU: \(what)")
        #expect(await peripheral.state == .connected)
    }

    /// A response nobody asked for closes the bearer; the disconnection names it.
    @Test func unsolicitedResponseIsReportedWithTheDisconnection() async throws {
        let radio = MemoryRadio()
        try RawATTPeer.start(on: radio) { pdu, _ in
            // The MTU answer, then a Read Response no request asked for.
            RawATTPeer.mtu(pdu).map { $0 + [[0x0B, 0x01, 0x02]] } ?? []
        }
        let central = CentralManager(transport: .memory(radio))
        let peripheral = central.peripheral(address: RawATTPeer.address, type: .random)
        let events = peripheral.lifecycleEvents
        try? await central.connect(peripheral, timeout: hangGuard, discoverDatabase: false)
        let down = try await first(events, "disconnected") {
            if case .disconnected = $0 { true } else { false }
        }
        #expect(down == .disconnected(.attBearerClosed(.unexpectedResponse(.readResponse)), reconnectAt: nil))
        #expect("\(down)".contains("Read Response"))
    }

    /// The peer ends the link while a read is outstanding: the read fails with the
    /// peer's reason, named as the spec names it.
    @Test func peerDisconnectFailsTheRequestWithItsReason() async throws {
        let radio = MemoryRadio()
        try RawATTPeer.start(on: radio) { pdu, link in
            if let mtu = RawATTPeer.mtu(pdu) { return mtu }
            // The peripheral's side terminates: the central sees 0x13.
            link.close()
            return []
        }
        let (_, peripheral) = try await RawATTPeer.connect(radio)
        let error = try #require(await failure { () async throws(AttuneError) in try await peripheral.readValue(for: RawATTPeer.readable) })
        #expect(error == .peripheralDisconnected(.hci(HCIStatus.remoteUserTerminatedConnection)))
        #expect(error.description
                == "peripheral disconnected: Remote User Terminated Connection (HCI 0x13); the peripheral closed the connection")
    }
}

/// The error `body` fails with, or nil when it succeeds.
func failure<T>(_ body: () async throws(AttuneError) -> T) async -> AttuneError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// The four ATT security errors say what the attribute requires and how to get it.
@Suite("ATT security errors name the requirement and the fix")
struct ATTSecurityErrorTextTests {
    @Test func eachSecurityErrorNamesWhatTheAttributeRequires() {
        let authentication = AttuneError.att(.insufficientAuthentication).description
        #expect(authentication.hasPrefix("ATT error: 0x05 Insufficient Authentication; the attribute requires an authenticated link"))
        #expect(authentication.contains("bluetoothctl pair ADDRESS"))
        let encryption = AttuneError.att(.insufficientEncryption).description
        #expect(encryption.contains("the attribute requires an encrypted link"))
        #expect(encryption.contains("kernel transport"))
        let keySize = AttuneError.att(.encryptionKeySizeTooShort).description
        #expect(keySize.contains("longer encryption key"))
        #expect(keySize.contains("bluetoothctl remove ADDRESS"))
        let authorization = AttuneError.att(.insufficientAuthorization).description
        #expect(authorization.contains("requires authorization by the peripheral"))
        #expect(authorization.contains("pairing does not grant it"))
        #expect(AttuneError.att(.readNotPermitted).description == "ATT error: 0x02 Read Not Permitted",
                "other errors stay as they were")
    }

    @Test func aSecurityRaiseThatFailedSaysBothHalves() {
        let error = AttuneError.securityUnavailable("the userland host has no SMP")
            .adding("the peripheral answered ATT error \(ATTErrorCode.insufficientAuthentication)")
        #expect(error.description == "link security cannot be raised: the peripheral answered ATT error "
                + "0x05 Insufficient Authentication; the userland host has no SMP")
    }
}
