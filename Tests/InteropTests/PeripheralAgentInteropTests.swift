import Attune
import ControllerTestSupport
import Foundation
import InteropTestSupport
import Testing

/// Our ``PeripheralManager`` with a characteristic that needs an authenticated key, and
/// a Bumble central: unpaired, its read gets Insufficient Authentication; it then pairs
/// with Passkey Entry (we display our fixed passkey, Bumble types it) and the same read
/// returns the value.
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct PeripheralAgentInteropTests {
    @Test("a Bumble central reads our authenticated-only value only after Passkey Entry with our passkey",
          .timeLimit(.minutes(20)))
    func authenticatedValueNeedsPasskey() async throws {
        let lab = try await InteropLab.start(role: "central", arguments: ["--io", "keyboard", "--mitm", "--passkey", "13579"])
        defer { lab.stop() }
        let agent = PairingAgent(), shown = LockedBox<[UInt32]>([])
        let watching = Task {
            for await request in agent {
                if case .displayPasskey(let passkey) = request.kind { shown.value.withLock { $0.append(passkey) } }
            }
        }
        defer { watching.cancel() }
        let manager = try PeripheralManager(transport: .h4(.tcp(host: "127.0.0.1", port: UInt16(lab.port(0)))),
                                            name: "AttuneAgent",
                                            pairing: PairingConfiguration(ioCapabilities: .display, requiresMITM: true,
                                                                          passkey: 13_579, agent: agent))
        try #require(try await settledState(manager.stateUpdates) == .poweredOn, "\(manager.status)")
        let value = Array("attune-auth".utf8)   // within one Read By Type entry at ATT_MTU 23
        _ = try await manager.add(ServiceDefinition(PairingInteropTests.protectedService, characteristics: [
            CharacteristicDefinition(PairingInteropTests.protectedCharacteristic, properties: [.read],
                                     permissions: .readable(.authenticated), value: value),
        ]))
        try await manager.startAdvertising(localName: "AttuneAgent")

        let unpaired = try await lab.run("connect-read AttuneAgent", timeout: hangGuard)
        #expect(unpaired.int("att_error") == 0x05, "Insufficient Authentication before pairing: \(unpaired)")
        _ = try await lab.waitFor("disconnected", timeout: hangGuard)

        let paired = try await lab.run("connect-pair AttuneAgent read", timeout: hangGuard)
        #expect(paired.bool("paired") == true, "\(paired)")
        #expect(paired.line.contains(hexString(value)), "\(paired)")
        let typed = try await lab.waitFor("passkey_entered", timeout: hangGuard)
        #expect(typed.int("number") == 13_579)
        #expect(shown.value.withLock { $0 } == [13_579], "our agent was shown the passkey")
        print("pairing (LE SC Passkey Entry, our peripheral displays), Bumble central: \(paired.line)")
        await manager.disconnectAll()
    }
}
