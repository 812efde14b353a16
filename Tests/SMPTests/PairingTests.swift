import Testing
import BluetoothCore
@testable import SMP

/// Our initiator against our responder, for every association model in both pairing kinds:
/// both sides must end with the same keys, each holding what the other distributed.
@Suite struct PairingTests {
    static func config(_ io: IOCapability, mitm: Bool = false, sc: Bool = true, identityByte: UInt8, address: SMPAddress,
                       keys: KeyDistribution = [.encKey, .idKey, .signKey]) -> SMPConfiguration {
        SMPConfiguration(ioCapability: io, requiresMITM: mitm, secureConnections: sc, localKeys: keys, peerKeys: keys,
                         identity: identity(identityByte, address))
    }

    static func centralConfig(_ io: IOCapability, mitm: Bool = false, sc: Bool = true) -> SMPConfiguration {
        config(io, mitm: mitm, sc: sc, identityByte: 0xC1, address: SMPAddress(BluetoothAddress(0xC1, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE), isRandom: true))
    }

    static func peripheralConfig(_ io: IOCapability, mitm: Bool = false, sc: Bool = true) -> SMPConfiguration {
        config(io, mitm: mitm, sc: sc, identityByte: 0x9E, address: peripheralAddress)
    }

    /// Both completed with matching keys; returns the central's result.
    @discardableResult
    static func expectPaired(_ h: PairingHarness, model: AssociationModel, sc: Bool,
                             sourceLocation: SourceLocation = #_sourceLocation) -> PairingResult? {
        guard let c = h.result(.central), let p = h.result(.peripheral) else {
            let message = "pairing did not complete: central \(String(describing: h.failure(.central))), "
                + "peripheral \(String(describing: h.failure(.peripheral)))"
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            return nil
        }
        #expect(c.associationModel == model, sourceLocation: sourceLocation)
        #expect(p.associationModel == model, sourceLocation: sourceLocation)
        #expect(c.secureConnections == sc && p.secureConnections == sc, sourceLocation: sourceLocation)
        #expect(c.securityLevel == (model == .justWorks ? .unauthenticated : .authenticated), sourceLocation: sourceLocation)
        #expect(c.keySize == 16 && p.keySize == 16, sourceLocation: sourceLocation)
        #expect(c.bonded && p.bonded, sourceLocation: sourceLocation)
        // The link layer encrypted once, with the same key on both sides.
        #expect(h.encryptions.count == 1, sourceLocation: sourceLocation)
        #expect(h.encryptions.first?.central == h.encryptions.first?.peripheral, sourceLocation: sourceLocation)
        if sc {
            #expect(c.longTermKey != nil && c.longTermKey == p.longTermKey, sourceLocation: sourceLocation)
            #expect(c.longTermKey == h.encryptions.first?.central, sourceLocation: sourceLocation)
            #expect(c.localKeys.longTermKey == nil && c.peerKeys.longTermKey == nil, sourceLocation: sourceLocation)
        } else {
            #expect(c.longTermKey == nil, sourceLocation: sourceLocation)
            #expect(c.peerKeys.longTermKey != nil, sourceLocation: sourceLocation)
            #expect(c.localKeys.longTermKey != nil, sourceLocation: sourceLocation)
        }
        // Each side holds exactly what the other distributed.
        #expect(c.peerKeys == p.localKeys, sourceLocation: sourceLocation)
        #expect(p.peerKeys == c.localKeys, sourceLocation: sourceLocation)
        #expect(c.peerKeys.identityResolvingKey == SMPKey(exactly: [UInt8](repeating: 0x9E, count: 16)), sourceLocation: sourceLocation)
        #expect(c.peerKeys.identityAddress == peripheralAddress, sourceLocation: sourceLocation)
        #expect(p.peerKeys.identityResolvingKey == SMPKey(exactly: [UInt8](repeating: 0xC1, count: 16)), sourceLocation: sourceLocation)
        #expect(c.peerKeys.signatureKey != nil && p.peerKeys.signatureKey != nil, sourceLocation: sourceLocation)
        #expect(!h.central.isPairing && !h.peripheral.isPairing, sourceLocation: sourceLocation)
        #expect(h.central.deadline == nil && h.peripheral.deadline == nil, sourceLocation: sourceLocation)
        return c
    }

    // MARK: - LE legacy

    @Test func legacyJustWorks() {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput, sc: false), peripheral: Self.peripheralConfig(.noInputNoOutput))
        h.pair()
        Self.expectPaired(h, model: .justWorks, sc: false)
    }

    @Test func legacyPasskeyResponderDisplays() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardOnly, mitm: true, sc: false), peripheral: Self.peripheralConfig(.displayOnly))
        h.pair()
        Self.expectPaired(h, model: .passkeyEntry(.responderDisplays), sc: false)
        #expect(h.events[.peripheral]?.contains { if case .displayPasskey = $0 { true } else { false } } == true)
        #expect(h.events[.central]?.contains(.enterPasskey) == true)
    }

    @Test func legacyPasskeyInitiatorDisplays() {
        var h = PairingHarness(central: Self.centralConfig(.displayOnly, mitm: true, sc: false), peripheral: Self.peripheralConfig(.keyboardOnly))
        h.pair()
        Self.expectPaired(h, model: .passkeyEntry(.initiatorDisplays), sc: false)
        #expect(h.events[.central]?.contains { if case .displayPasskey = $0 { true } else { false } } == true)
    }

    @Test func legacyPasskeyBothInput() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardOnly, mitm: true, sc: false), peripheral: Self.peripheralConfig(.keyboardOnly))
        h.pair()
        Self.expectPaired(h, model: .passkeyEntry(.bothInput), sc: false)
    }

    @Test func legacyWrongPasskeyIsAConfirmValueFailure() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardOnly, mitm: true, sc: false), peripheral: Self.peripheralConfig(.displayOnly))
        h.wrongPasskey[.central] = 111_111
        h.pair()
        // The responder checks Mconfirm against Mrand first and refuses.
        #expect(h.failure(.peripheral) == .local(.confirmValueFailed))
        #expect(h.failure(.central) == .remote(.confirmValueFailed))
        #expect(!h.encryptionRequested)
    }

    // MARK: - LE Secure Connections

    @Test func secureJustWorks() {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput), peripheral: Self.peripheralConfig(.noInputNoOutput))
        h.pair()
        Self.expectPaired(h, model: .justWorks, sc: true)
    }

    @Test func secureNumericComparisonAccepted() {
        var h = PairingHarness(central: Self.centralConfig(.displayYesNo, mitm: true), peripheral: Self.peripheralConfig(.displayYesNo))
        h.pair()
        Self.expectPaired(h, model: .numericComparison, sc: true)
        #expect(h.numbers(.central).count == 1)
        #expect(h.numbers(.central) == h.numbers(.peripheral))
        #expect(h.numbers(.central).allSatisfy { $0 <= 999_999 })
    }

    @Test(arguments: [PairingHarness.Side.central, .peripheral])
    func secureNumericComparisonRejected(by side: PairingHarness.Side) {
        var h = PairingHarness(central: Self.centralConfig(.keyboardDisplay, mitm: true), peripheral: Self.peripheralConfig(.displayYesNo))
        h.numericAnswer[side] = false
        h.pair()
        let other: PairingHarness.Side = side == .central ? .peripheral : .central
        #expect(h.failure(side) == .local(.numericComparisonFailed))
        #expect(h.failure(other) == .remote(.numericComparisonFailed))
        #expect(h.result(.central) == nil && h.result(.peripheral) == nil)
        #expect(!h.encryptionRequested)
    }

    @Test func securePasskeyResponderDisplays() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardOnly, mitm: true), peripheral: Self.peripheralConfig(.displayOnly))
        h.pair()
        Self.expectPaired(h, model: .passkeyEntry(.responderDisplays), sc: true)
        // 20 rounds: each side sent 20 confirms and 20 randoms.
        #expect(h.sent[.central]?.filter { $0.first == 0x03 }.count == 20)
        #expect(h.sent[.peripheral]?.filter { $0.first == 0x04 }.count == 20)
    }

    @Test func securePasskeyInitiatorDisplays() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardDisplay, mitm: true), peripheral: Self.peripheralConfig(.keyboardOnly))
        h.pair()
        Self.expectPaired(h, model: .passkeyEntry(.initiatorDisplays), sc: true)
    }

    @Test func securePasskeyBothInput() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardOnly, mitm: true), peripheral: Self.peripheralConfig(.keyboardOnly))
        h.pair()
        Self.expectPaired(h, model: .passkeyEntry(.bothInput), sc: true)
    }

    @Test func secureWrongPasskeyFailsAConfirm() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardOnly, mitm: true), peripheral: Self.peripheralConfig(.displayOnly))
        h.wrongPasskey[.central] = 999_999
        h.pair()
        #expect(h.failure(.central) == .local(.confirmValueFailed) || h.failure(.peripheral) == .local(.confirmValueFailed))
        #expect(!h.encryptionRequested)
    }

    @Test func passkeyRefusedByTheUser() {
        var h = PairingHarness(central: Self.centralConfig(.keyboardOnly, mitm: true), peripheral: Self.peripheralConfig(.displayOnly))
        h.answersPasskeys = false
        h.pair()
        #expect(h.events[.central]?.contains(.enterPasskey) == true)
        var refusal = SecurityManagerOutput()
        h.central.answer(.refuse, at: h.now, into: &refusal)
        #expect(refusal.sentPDUs == [[0x05, 0x01]])
        #expect(refusal.events == [.failed(.local(.passkeyEntryFailed))])
    }

    @Test func secureOutOfBandBothWays() throws {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput), peripheral: Self.peripheralConfig(.noInputNoOutput))
        let centralOOB = try h.central.makeLocalOOBData()
        let peripheralOOB = try h.peripheral.makeLocalOOBData()
        var out = SecurityManagerOutput()
        h.central.answer(.oobData(peripheralOOB), at: h.now, into: &out)
        h.peripheral.answer(.oobData(centralOOB), at: h.now, into: &out)
        h.pair()
        Self.expectPaired(h, model: .outOfBand, sc: true)
    }

    @Test func secureOutOfBandOneWay() throws {
        // Only the central read the peripheral's data (say, from its NFC tag).
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput), peripheral: Self.peripheralConfig(.noInputNoOutput))
        let peripheralOOB = try h.peripheral.makeLocalOOBData()
        var out = SecurityManagerOutput()
        h.central.answer(.oobData(peripheralOOB), at: h.now, into: &out)
        h.pair()
        Self.expectPaired(h, model: .outOfBand, sc: true)
    }

    @Test func outOfBandDataOfAnotherDeviceFailsTheConfirm() throws {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput), peripheral: Self.peripheralConfig(.noInputNoOutput))
        _ = try h.peripheral.makeLocalOOBData()
        var stranger = SecurityManager(role: .responder, localAddress: peripheralAddress, peerAddress: centralAddress,
                                       random: SeededRandom(state: 77))
        let wrong = try stranger.makeLocalOOBData()
        var out = SecurityManagerOutput()
        h.central.answer(.oobData(wrong), at: h.now, into: &out)
        h.pair()
        #expect(h.failure(.central) == .local(.confirmValueFailed))
        #expect(!h.encryptionRequested)
    }

    @Test func secureConnectionsFallsBackToLegacyUnlessRequired() {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput), peripheral: Self.peripheralConfig(.noInputNoOutput, sc: false))
        h.pair()
        Self.expectPaired(h, model: .justWorks, sc: false)

        var strict = Self.centralConfig(.noInputNoOutput)
        strict.secureConnectionsOnly = true
        var s = PairingHarness(central: strict, peripheral: Self.peripheralConfig(.noInputNoOutput, sc: false))
        s.pair()
        #expect(s.failure(.central) == .local(.authenticationRequirements))
        #expect(!s.encryptionRequested)
    }

    @Test func mitmRequiredRefusesJustWorks() {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput), peripheral: Self.peripheralConfig(.noInputNoOutput, mitm: true))
        h.pair()
        #expect(h.failure(.peripheral) == .local(.authenticationRequirements))
        #expect(h.failure(.central) == .remote(.authenticationRequirements))
    }

    @Test func crossTransportKeyDerivation() throws {
        var c = Self.centralConfig(.noInputNoOutput)
        var p = Self.peripheralConfig(.noInputNoOutput)
        c.localKeys.insert(.linkKey); c.peerKeys.insert(.linkKey)
        p.localKeys.insert(.linkKey); p.peerKeys.insert(.linkKey)
        var h = PairingHarness(central: c, peripheral: p)
        h.pair()
        let result = try #require(Self.expectPaired(h, model: .justWorks, sc: true))
        let ltk = try #require(result.longTermKey)
        // Both support CT2: ILK = h7("tmp1", LTK), link key = h6(ILK, "lebr").
        let ilk = try SecurityFunctions.h7(salt: SecurityFunctions.keyID("tmp1") + [UInt8](repeating: 0, count: 12), w: ltk.bytes)
        let expected = try SecurityFunctions.h6(w: ilk, keyID: SecurityFunctions.keyID("lebr"))
        #expect(result.linkKey?.bytes == expected)
        #expect(h.result(.peripheral)?.linkKey == result.linkKey)
    }

    @Test func keySizeIsTheSmallerMaximum() {
        var c = Self.centralConfig(.noInputNoOutput, sc: false)
        c.minimumKeySize = 7
        c.maximumKeySize = 10
        var p = Self.peripheralConfig(.noInputNoOutput)
        p.minimumKeySize = 7
        var h = PairingHarness(central: c, peripheral: p)
        h.pair()
        let result = h.result(.central)
        #expect(result?.keySize == 10)
        // The STK and the distributed LTKs are masked to 10 octets.
        #expect(h.encryptions.first?.central.bytes[10...].allSatisfy { $0 == 0 } == true)
        #expect(result?.peerKeys.longTermKey?.bytes[10...].allSatisfy { $0 == 0 } == true)
    }

    @Test func noBondingDistributesNoKeys() {
        var c = Self.centralConfig(.noInputNoOutput)
        c.bonding = false
        var h = PairingHarness(central: c, peripheral: Self.peripheralConfig(.noInputNoOutput))
        h.pair()
        let result = h.result(.central)
        #expect(result?.bonded == false)
        #expect(result?.peerKeys == DistributedKeys())
        #expect(result?.longTermKey != nil)
    }

    @Test func securityRequestStartsPairingFromTheCentral() {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput), peripheral: Self.peripheralConfig(.noInputNoOutput))
        var out = SecurityManagerOutput()
        h.peripheral.start(at: h.now, into: &out)
        #expect(out.sentPDUs.first?.first == 0x0B)
        h.collect(out, from: .peripheral)
        h.run()
        #expect(h.events[.central]?.first == .securityRequested([.bonding, .secureConnections, .ct2]))
        Self.expectPaired(h, model: .justWorks, sc: true)
    }

    @Test func associationModelTable() {
        typealias M = AssociationModel
        let caps: [IOCapability] = [.displayOnly, .displayYesNo, .keyboardOnly, .noInputNoOutput, .keyboardDisplay]
        // Rows: responder; columns: initiator (Vol 3 Part H Table 2.8), Secure Connections.
        let sc: [[M]] = [
            [.justWorks, .justWorks, .passkeyEntry(.responderDisplays), .justWorks, .passkeyEntry(.responderDisplays)],
            [.justWorks, .numericComparison, .passkeyEntry(.responderDisplays), .justWorks, .numericComparison],
            [.passkeyEntry(.initiatorDisplays), .passkeyEntry(.initiatorDisplays), .passkeyEntry(.bothInput), .justWorks, .passkeyEntry(.initiatorDisplays)],
            [.justWorks, .justWorks, .justWorks, .justWorks, .justWorks],
            [.passkeyEntry(.initiatorDisplays), .numericComparison, .passkeyEntry(.responderDisplays), .justWorks, .numericComparison],
        ]
        let legacy: [[M]] = [
            [.justWorks, .justWorks, .passkeyEntry(.responderDisplays), .justWorks, .passkeyEntry(.responderDisplays)],
            [.justWorks, .justWorks, .passkeyEntry(.responderDisplays), .justWorks, .passkeyEntry(.responderDisplays)],
            [.passkeyEntry(.initiatorDisplays), .passkeyEntry(.initiatorDisplays), .passkeyEntry(.bothInput), .justWorks, .passkeyEntry(.initiatorDisplays)],
            [.justWorks, .justWorks, .justWorks, .justWorks, .justWorks],
            [.passkeyEntry(.initiatorDisplays), .passkeyEntry(.initiatorDisplays), .passkeyEntry(.responderDisplays), .justWorks, .passkeyEntry(.initiatorDisplays)],
        ]
        for (r, responder) in caps.enumerated() {
            for (i, initiator) in caps.enumerated() {
                #expect(M.fromIOCapabilities(initiator: initiator, responder: responder, secureConnections: true) == sc[r][i],
                        "SC responder \(responder) initiator \(initiator)")
                #expect(M.fromIOCapabilities(initiator: initiator, responder: responder, secureConnections: false) == legacy[r][i],
                        "legacy responder \(responder) initiator \(initiator)")
            }
        }
    }

    @Test func aManagerMidPairingNeverPrintsItsKeys() throws {
        var h = PairingHarness(central: Self.centralConfig(.displayYesNo, mitm: true), peripheral: Self.peripheralConfig(.displayYesNo))
        h.numericAnswer = [:]
        // Stop before the users answer: both managers hold their DHKey.
        var out = SecurityManagerOutput()
        h.central.start(at: h.now, into: &out)
        var toPeripheral = out.sentPDUs, toCentral: [[UInt8]] = []
        for _ in 0..<6 {
            for pdu in toPeripheral { out.removeAll(); h.peripheral.receive(pdu[...], at: h.now, into: &out); toCentral += out.sentPDUs }
            toPeripheral = []
            for pdu in toCentral { out.removeAll(); h.central.receive(pdu[...], at: h.now, into: &out); toPeripheral += out.sentPDUs }
            toCentral = []
        }
        let dhKey = try #require(h.central.pairing?.dhKey)
        let text = ["\(h.central)", String(reflecting: h.central), "\(Mirror(reflecting: h.central).children.map { $0 })"].joined()
        #expect(text.contains("<redacted>"))
        #expect(!text.contains(dhKey.map { String($0) }.joined(separator: ", ")))
        var dumped = ""
        dump(h.central, to: &dumped)
        #expect(!dumped.contains("dhKey"))
    }

    @Test func resultsNeverPrintKeys() {
        var h = PairingHarness(central: Self.centralConfig(.noInputNoOutput, sc: false), peripheral: Self.peripheralConfig(.noInputNoOutput))
        h.pair()
        guard let result = h.result(.central), let ltk = result.peerKeys.longTermKey else { Issue.record("no result"); return }
        let hex = hexString(ltk.bytes)
        for text in ["\(result)", String(reflecting: result), "\(h.events[.central] ?? [])", "\(h.central)"] {
            #expect(!text.contains(hex))
            #expect(!text.contains(ltk.bytes.map { String($0) }.joined(separator: ", ")))
        }
    }
}
