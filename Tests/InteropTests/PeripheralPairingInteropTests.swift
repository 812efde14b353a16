import Attune
import ControllerTestSupport
import Foundation
import HCI
import InteropTestSupport
import Testing

/// The peripheral half of pairing: a Bumble central pairs with our ``PeripheralManager``
/// over our userland host, and our Security Manager answers the controller's LTK request
/// with the key of the pairing in progress. Every association model with us as responder:
/// Just Works, Numeric Comparison through our agent, Passkey Entry with Bumble displaying and
/// us typing, and LE legacy Passkey Entry with our fixed passkey displayed and Bumble typing
/// it (`attune serve --passkey` covers SC Passkey Entry with us displaying).
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct PeripheralPairingInteropTests {
    @Test("a Bumble central pairs with our peripheral (LE SC Just Works) and the link encrypts with our LTK reply")
    func bumbleCentralPairs() async throws {
        let lab = try await InteropLab.start(role: "central")
        defer { lab.stop() }
        let capturePath = FileManager.default.temporaryDirectory.appendingPathComponent("api-peripheral-pairing-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: capturePath) }
        let manager = try PeripheralManager(transport: .h4(.tcp(host: "127.0.0.1", port: UInt16(lab.port(0)))),
                                            name: "AttunePairing", snoop: try SnoopFile(path: capturePath))
        try #require(try await settledState(manager.stateUpdates) == .poweredOn, "\(manager.status)")
        _ = try await manager.add(PublicAPIPeripheralInteropTests.database)
        try await manager.startAdvertising(localName: "AttunePairing")

        let result = try await lab.run("connect-pair AttunePairing", timeout: hangGuard)
        #expect(result.bool("paired") == true, "\(result)")
        #expect(result.bool("encrypted") == true, "\(result)")
        print("pairing (LE SC Just Works), Bumble central → our peripheral: \(result.line)")

        // Our side answered the LTK request with a key (masked in the capture), never negatively.
        let replies = try PairingInteropTests.commands(capturePath, opcode: LELongTermKeyRequestReply.opcode.rawValue)
        #expect(replies.count == 1)
        #expect(replies.allSatisfy { $0.count == 18 && $0.suffix(16).allSatisfy { $0 == 0 } }, "the key is masked")
        #expect(try PairingInteropTests.commands(capturePath, opcode: LELongTermKeyRequestNegativeReply.opcode.rawValue).isEmpty)
        let smp = try PairingInteropTests.smpCodes(capturePath)
        #expect(smp.first.map { !$0.sent && $0.code == 0x01 } == true, "Bumble's Pairing Request: \(smp)")
        #expect(smp.contains { $0.sent && $0.code == 0x02 }, "our Pairing Response")
    }

    /// Our peripheral, advertising `name` with the interop database, pairing as `pairing` says.
    static func advertising(_ lab: InteropLab, name: String, pairing: PairingConfiguration) async throws -> PeripheralManager {
        let manager = try PeripheralManager(transport: .h4(.tcp(host: "127.0.0.1", port: UInt16(lab.port(0)))),
                                            name: name, pairing: pairing)
        for await state in manager.stateUpdates where state == .poweredOn || state == .unsupported { break }
        try #require(manager.state == .poweredOn, "\(manager.status)")
        _ = try await manager.add(PublicAPIPeripheralInteropTests.database)
        try await manager.startAdvertising(localName: name)
        return manager
    }

    @Test("Numeric Comparison as responder: a Bumble central pairs, our agent confirms the number Bumble compares too",
          .timeLimit(.minutes(20)))
    func bumbleCentralNumericComparison() async throws {
        let lab = try await InteropLab.start(role: "central", arguments: ["--io", "display-yes-no", "--mitm"])
        defer { lab.stop() }
        let agent = PairingAgent(), numbers = LockedBox<[UInt32]>([])
        let answering = PairingAgentInteropTests.answer(agent, confirm: true, numbers: numbers)
        defer { answering.cancel() }
        let manager = try await Self.advertising(lab, name: "AttuneCompare",
                                                 pairing: PairingConfiguration(ioCapabilities: .displayYesNo, agent: agent))
        let result = try await lab.run("connect-pair AttuneCompare", timeout: hangGuard)
        #expect(result.bool("paired") == true && result.bool("encrypted") == true, "\(result)")
        let compare = try await lab.waitFor("compare", timeout: hangGuard)
        let shown = try #require(compare.int("number"))
        #expect(numbers.value.withLock { $0 } == [UInt32(shown)], "both sides compared the same six digits")
        let paired = try await lab.waitFor("paired", timeout: hangGuard)
        #expect(paired.bool("authenticated") == true && paired.bool("legacy") == false, "\(paired)")
        print("pairing (LE SC Numeric Comparison), Bumble central → our peripheral: \(result.line)")
        _ = manager
    }

    @Test("LE legacy Passkey Entry as responder: we display a fixed passkey, a legacy-only Bumble central types it",
          .timeLimit(.minutes(20)))
    func bumbleCentralLegacyPasskey() async throws {
        let passkey: UInt32 = 271_828
        let lab = try await InteropLab.start(role: "central",
                                             arguments: ["--legacy", "--io", "keyboard", "--mitm", "--passkey", "\(passkey)"])
        defer { lab.stop() }
        let manager = try await Self.advertising(lab, name: "AttuneLegacy",
                                                 pairing: PairingConfiguration(ioCapabilities: .display, passkey: passkey))
        let result = try await lab.run("connect-pair AttuneLegacy", timeout: hangGuard)
        #expect(result.bool("paired") == true && result.bool("encrypted") == true, "\(result)")
        let entered = try await lab.waitFor("passkey_entered", timeout: hangGuard)
        #expect(entered.int("number") == Int(passkey))
        let paired = try await lab.waitFor("paired", timeout: hangGuard)
        #expect(paired.bool("legacy") == true && paired.bool("authenticated") == true, "\(paired)")
        print("pairing (LE legacy Passkey Entry), Bumble central → our peripheral: \(result.line)")
        _ = manager
    }

    @Test("Passkey Entry as responder, we type: a Bumble central displays its passkey, our peripheral enters the same one",
          .timeLimit(.minutes(20)))
    func bumbleCentralDisplaysWeType() async throws {
        let passkey: UInt32 = 161_803
        let lab = try await InteropLab.start(role: "central", arguments: ["--io", "display", "--mitm", "--passkey", "\(passkey)"])
        defer { lab.stop() }
        let manager = try await Self.advertising(lab, name: "AttuneTypes",
                                                 pairing: PairingConfiguration(ioCapabilities: .keyboard, passkey: passkey))
        let result = try await lab.run("connect-pair AttuneTypes", timeout: hangGuard)
        #expect(result.bool("paired") == true && result.bool("encrypted") == true, "\(result)")
        let shown = try await lab.waitFor("passkey_displayed", timeout: hangGuard)
        #expect(shown.int("number") == Int(passkey), "Bumble displayed the passkey our side typed")
        let paired = try await lab.waitFor("paired", timeout: hangGuard)
        #expect(paired.bool("authenticated") == true && paired.bool("legacy") == false, "\(paired)")
        print("pairing (LE SC Passkey Entry, we type), Bumble central → our peripheral: \(result.line)")
        _ = manager
    }
}
