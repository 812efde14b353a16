import Testing
import BluetoothCore
@testable import SMP

/// The pairing state is one enum whose cases carry their step's data (`Pairing`). These
/// tests walk every flow PDU by PDU: each step takes only its own PDU, and anything else
/// gets the Pairing Failed reason the Core names (Vol 3 Part H §3.5.5): Command Not Supported
/// for a PDU the role never takes, Unspecified Reason for one the step does not take.
@Suite struct PairingStepTests {
    enum Flow: String, CaseIterable, CustomStringConvertible {
        case legacyJustWorks, legacyPasskeyResponderDisplays, legacyPasskeyInitiatorDisplays, legacyPasskeyBothInput
        case secureJustWorks, secureJustWorksConfirmed, secureNumericComparison
        case securePasskeyResponderDisplays, securePasskeyInitiatorDisplays, securePasskeyBothInput, secureOutOfBand

        var description: String { rawValue }

        /// A harness that records a snapshot before every input, paired to the end.
        func paired() throws -> PairingHarness {
            typealias T = PairingTests
            var h: PairingHarness
            switch self {
            case .legacyJustWorks:
                h = PairingHarness(central: T.centralConfig(.noInputNoOutput, sc: false), peripheral: T.peripheralConfig(.noInputNoOutput))
            case .legacyPasskeyResponderDisplays:
                h = PairingHarness(central: T.centralConfig(.keyboardOnly, mitm: true, sc: false), peripheral: T.peripheralConfig(.displayOnly))
            case .legacyPasskeyInitiatorDisplays:
                h = PairingHarness(central: T.centralConfig(.displayOnly, mitm: true, sc: false), peripheral: T.peripheralConfig(.keyboardOnly))
            case .legacyPasskeyBothInput:
                h = PairingHarness(central: T.centralConfig(.keyboardOnly, mitm: true, sc: false), peripheral: T.peripheralConfig(.keyboardOnly))
            case .secureJustWorks:
                h = PairingHarness(central: T.centralConfig(.noInputNoOutput), peripheral: T.peripheralConfig(.noInputNoOutput))
            case .secureJustWorksConfirmed:
                var peripheral = T.peripheralConfig(.noInputNoOutput)
                peripheral.confirmsJustWorks = true
                var central = T.centralConfig(.noInputNoOutput)
                central.confirmsJustWorks = true
                h = PairingHarness(central: central, peripheral: peripheral)
            case .secureNumericComparison:
                h = PairingHarness(central: T.centralConfig(.displayYesNo, mitm: true), peripheral: T.peripheralConfig(.displayYesNo))
            case .securePasskeyResponderDisplays:
                h = PairingHarness(central: T.centralConfig(.keyboardOnly, mitm: true), peripheral: T.peripheralConfig(.displayOnly))
            case .securePasskeyInitiatorDisplays:
                h = PairingHarness(central: T.centralConfig(.keyboardDisplay, mitm: true), peripheral: T.peripheralConfig(.keyboardOnly))
            case .securePasskeyBothInput:
                h = PairingHarness(central: T.centralConfig(.keyboardOnly, mitm: true), peripheral: T.peripheralConfig(.keyboardOnly))
            case .secureOutOfBand:
                h = PairingHarness(central: T.centralConfig(.noInputNoOutput), peripheral: T.peripheralConfig(.noInputNoOutput))
                let centralOOB = try h.central.makeLocalOOBData()
                let peripheralOOB = try h.peripheral.makeLocalOOBData()
                var out = SecurityManagerOutput()
                h.central.answer(.oobData(peripheralOOB), at: h.now, into: &out)
                h.peripheral.answer(.oobData(centralOOB), at: h.now, into: &out)
            }
            h.recordsSnapshots = true
            h.pair()
            return h
        }
    }

    /// One well-formed PDU of every code a step could wrongly get. Pairing Failed, Keypress
    /// Notification and the central's Security Request are left out: every step takes them.
    static let strays: [[UInt8]] = [
        [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07],                      // Pairing Request
        [0x02, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07],                      // Pairing Response
        [0x03] + [UInt8](repeating: 0x11, count: 16),                    // Pairing Confirm
        [0x04] + [UInt8](repeating: 0x22, count: 16),                    // Pairing Random
        [0x06] + [UInt8](repeating: 0x33, count: 16),                    // Encryption Information
        [0x07] + [UInt8](repeating: 0x44, count: 10),                    // Central Identification
        [0x08] + [UInt8](repeating: 0x55, count: 16),                    // Identity Information
        [0x09, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06],                // Identity Address Information
        [0x0A] + [UInt8](repeating: 0x66, count: 16),                    // Signing Information
        [0x0B, 0x01],                                                    // Security Request
        [0x0C] + [UInt8](repeating: 0x77, count: 64),                    // Pairing Public Key
        [0x0D] + [UInt8](repeating: 0x88, count: 16),                    // Pairing DHKey Check
    ]

    /// The reason the Core names for `code` arriving at `role` in a step that does not take it.
    static func reason(for code: UInt8, at role: SecurityManager.Role) -> PairingFailedReason {
        switch (code, role) {
        case (0x01, .initiator), (0x02, .responder), (0x0B, .responder): .commandNotSupported
        default: .unspecifiedReason
        }
    }

    @Test(arguments: Flow.allCases)
    func everyStepRefusesThePDUsOfOtherSteps(_ flow: Flow) throws {
        let h = try flow.paired()
        #expect(h.result(.central) != nil && h.result(.peripheral) != nil, "\(flow) did not pair")
        #expect(h.snapshots.count > 8)
        for snapshot in h.snapshots {
            let step = snapshot.manager.pairing?.stepName ?? "idle"
            for stray in Self.strays where stray.first != snapshot.next?.first {
                if snapshot.manager.role == .initiator && stray.first == 0x0B { continue }
                var manager = snapshot.manager
                var out = SecurityManagerOutput()
                manager.receive(stray[...], at: .zero, into: &out)
                let reason = Self.reason(for: stray[0], at: manager.role)
                let context = Comment(rawValue: "\(flow), \(manager.role) in \(step), got 0x\(String(stray[0], radix: 16))")
                #expect(out.sentPDUs == [[0x05, reason.rawValue]], context)
                #expect(out.events == [.failed(.local(reason))], context)
                #expect(!manager.isPairing, context)
            }
        }
    }

    /// The steps each side passes through, by name, in Secure Connections Just Works.
    @Test func secureJustWorksWalksTheseSteps() throws {
        let h = try Flow.secureJustWorks.paired()
        let steps = { (side: PairingHarness.Side) in
            h.snapshots.filter { $0.side == side }.map { $0.manager.pairing?.stepName ?? "idle" }
        }
        #expect(steps(.central) == [
            "pairing request sent",
            "Secure Connections, public key sent",
            "Secure Connections, awaiting confirm",
            "Secure Connections, awaiting random",
            "Secure Connections, DHKey check sent",
            "Secure Connections, encrypting",
            "Secure Connections, distributing keys",
            "Secure Connections, distributing keys",
            "Secure Connections, distributing keys",
        ])
        #expect(steps(.peripheral) == [
            "idle",
            "Secure Connections, awaiting public key",
            "Secure Connections, awaiting random",
            "Secure Connections, awaiting DHKey check",
            "Secure Connections, encrypting",
            "Secure Connections, distributing keys",
            "Secure Connections, distributing keys",
            "Secure Connections, distributing keys",
        ])
    }

    /// The DHKey is held from the public key exchange until stage 2 is computed, and by no
    /// step before or after: a step holds only its own data.
    @Test(arguments: [Flow.secureNumericComparison, .securePasskeyBothInput, .secureOutOfBand, .legacyJustWorks])
    func theDHKeyLivesOnlyThroughStageOne(_ flow: Flow) throws {
        let h = try flow.paired()
        for snapshot in h.snapshots {
            let held = snapshot.manager.pairing?.dhKey != nil
            switch snapshot.manager.pairing {
            case .secureConnections(_, .awaitingConfirm)?, .secureConnections(_, .awaitingRandom)?,
                 .secureConnections(_, .passkey)?, .secureConnections(_, .awaitingUser)?:
                #expect(held)
            default:
                #expect(!held, "\(flow): \(snapshot.manager.pairing?.stepName ?? "idle") holds a DHKey")
            }
        }
        #expect(!h.central.isPairing && !h.peripheral.isPairing)
    }

    /// An answer nobody asked for changes nothing; the wrong kind of answer fails the pairing
    /// with the reason of what was asked.
    @Test func answersOutsideTheirStep() {
        var h = PairingHarness(central: PairingTests.centralConfig(.displayYesNo, mitm: true),
                               peripheral: PairingTests.peripheralConfig(.displayYesNo))
        h.recordsSnapshots = true
        h.pair()
        // Again, PDUs only, with users who never answer: both end up showing the numbers.
        var fresh = PairingHarness(central: PairingTests.centralConfig(.displayYesNo, mitm: true),
                                   peripheral: PairingTests.peripheralConfig(.displayYesNo))
        var out = SecurityManagerOutput()
        fresh.central.start(at: fresh.now, into: &out)
        var toPeripheral = out.sentPDUs, toCentral: [[UInt8]] = []
        while !toPeripheral.isEmpty {
            for pdu in toPeripheral { out.removeAll(); fresh.peripheral.receive(pdu[...], at: fresh.now, into: &out); toCentral += out.sentPDUs }
            toPeripheral = []
            for pdu in toCentral { out.removeAll(); fresh.central.receive(pdu[...], at: fresh.now, into: &out); toPeripheral += out.sentPDUs }
            toCentral = []
        }
        guard case .secureConnections(_, .awaitingUser)? = fresh.central.pairing,
              case .secureConnections(_, .awaitingUser)? = fresh.peripheral.pairing else {
            Issue.record("not waiting for the user: \(fresh.central), \(fresh.peripheral)")
            return
        }
        // A passkey where numbers were asked: Numeric Comparison Failed.
        var central = fresh.central
        out.removeAll()
        central.answer(.passkey(123_456), at: h.now, into: &out)
        #expect(out.sentPDUs == [[0x05, 0x0C]])
        #expect(out.events == [.failed(.local(.numericComparisonFailed))])
        // The central agrees and sends Ea; the responder keeps it until its user agrees too.
        out.removeAll()
        fresh.central.answer(.numericComparison(true), at: fresh.now, into: &out)
        let ea = out.sentPDUs
        #expect(ea.count == 1 && ea.first?.first == 0x0D)
        out.removeAll()
        for pdu in ea { fresh.peripheral.receive(pdu[...], at: fresh.now, into: &out) }
        #expect(out.sentPDUs.isEmpty && out.events.isEmpty)
        guard case .secureConnections(_, .awaitingUser(_, peerCheck: ea.first.map { Array($0.dropFirst()) }))? = fresh.peripheral.pairing
        else { Issue.record("Ea not kept: \(fresh.peripheral)"); return }
        fresh.peripheral.answer(.numericComparison(true), at: fresh.now, into: &out)
        #expect(out.sentPDUs.count == 1 && out.sentPDUs.first?.first == 0x0D)
        guard case .encrypting(_, .longTerm)? = fresh.peripheral.pairing else { Issue.record("not encrypting"); return }
        // Before the numbers (at the public key exchange) an answer is ignored.
        let early = h.snapshots.first { if case .secureConnections(_, .publicKeySent)? = $0.manager.pairing { true } else { false } }
        guard var waiting = early?.manager else { Issue.record("no snapshot at the public key exchange"); return }
        out.removeAll()
        waiting.answer(.numericComparison(true), at: h.now, into: &out)
        waiting.answer(.passkey(1), at: h.now, into: &out)
        #expect(out.sentPDUs.isEmpty && out.events.isEmpty)
        guard case .secureConnections(_, .publicKeySent)? = waiting.pairing else { Issue.record("the step changed"); return }
    }
}
