import Attune
import ControllerTestSupport
import Foundation
import InteropTestSupport
import Testing

/// The pairing agent against Bumble, through the public API over our userland host (H4):
/// Numeric Comparison confirmed by our agent (both sides must see the same six digits),
/// refused by it, and Passkey Entry with our side displaying a fixed passkey that
/// Bumble types. Bumble's value needs an authenticated key (lab.py --protected-auth).
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct PairingAgentInteropTests {
    /// Our central with `pairing`, on the lab's first controller.
    static func central(_ lab: InteropLab, pairing: PairingConfiguration) async throws -> CentralManager {
        let central = CentralManager(transport: .h4(.tcp(host: "127.0.0.1", port: UInt16(lab.port(0)))), pairing: pairing)
        for await state in central.stateUpdates where state == .poweredOn || state == .unsupported { break }
        try #require(central.state == .poweredOn, "\(central.status)")
        return central
    }

    /// Connects to device 0 and finds its protected characteristic.
    static func protected(_ lab: InteropLab, _ central: CentralManager) async throws -> (Peripheral, Characteristic) {
        let name = try #require(lab.ready.device(0, "name"))
        let peripheral = try #require(try await PublicAPIInteropTests.find([name], with: central).first)
        try await central.connect(peripheral, timeout: hangGuard)
        let service = try #require(try await peripheral.discoverServices([PairingInteropTests.protectedService]).first)
        let characteristic = try #require(try await peripheral.discoverCharacteristics(
            [PairingInteropTests.protectedCharacteristic], for: service).first)
        return (peripheral, characteristic)
    }

    /// Answers every request of `agent`: numbers with `confirm`, noting each number asked.
    static func answer(_ agent: PairingAgent, confirm: Bool, numbers: LockedBox<[UInt32]>) -> Task<Void, Never> {
        Task {
            for await request in agent {
                if case .confirmNumber(let number) = request.kind {
                    numbers.value.withLock { $0.append(number) }
                    request.confirm(confirm)
                } else if request.needsAnswer {
                    request.refuse()
                }
            }
        }
    }

    @Test("Numeric Comparison: our agent confirms the number Bumble shows too, and the authenticated value reads",
          .timeLimit(.minutes(20)))
    func numericComparison() async throws {
        let lab = try await InteropLab.start(role: "peripheral,peripheral,central", devices: 3,
                                             arguments: ["--protected-auth", "--io", "display-yes-no", "--mitm"])
        defer { lab.stop() }
        let agent = PairingAgent(), numbers = LockedBox<[UInt32]>([])
        let answering = Self.answer(agent, confirm: true, numbers: numbers)
        defer { answering.cancel() }
        let central = try await Self.central(lab, pairing: PairingConfiguration(ioCapabilities: .keyboardDisplay, agent: agent))
        let (peripheral, characteristic) = try await Self.protected(lab, central)

        let clock = ContinuousClock()
        let started = clock.now
        let security = try await peripheral.pair()
        let elapsed = clock.now - started
        #expect(security.authenticated && security.secureConnections && security.keySize == 16, "\(security)")
        let compare = try await lab.waitFor("compare", timeout: hangGuard)
        let shown = try #require(compare.int("number"))
        #expect(numbers.value.withLock { $0 } == [UInt32(shown)], "both sides saw the same six digits")
        #expect(try await peripheral.readValue(for: characteristic) == Array("attune-encrypted".utf8))
        let paired = try await lab.waitFor("paired", timeout: hangGuard)
        #expect(paired.bool("authenticated") == true, "\(paired)")

        // Bumble's own Numeric Comparison between two of its devices, in the same run.
        let address = try #require(lab.ready.device(1, "address"))
        let between = try await lab.run("connect-pair \(address) read", timeout: hangGuard)
        #expect(between.bool("paired") == true, "\(between)")
        print("pairing (LE SC Numeric Comparison): our central's pair() with Bumble's peripheral took \(elapsed); "
              + "Bumble central with Bumble peripheral: \(between.line)")
        await central.cancelConnection(peripheral)
    }

    @Test("Numeric Comparison refused by our agent: Numeric Comparison Failed, no encryption, the read fails",
          .timeLimit(.minutes(20)))
    func numericComparisonRefused() async throws {
        let lab = try await InteropLab.start(role: "peripheral", arguments: ["--protected-auth", "--io", "display-yes-no", "--mitm"])
        defer { lab.stop() }
        let agent = PairingAgent(), numbers = LockedBox<[UInt32]>([])
        let answering = Self.answer(agent, confirm: false, numbers: numbers)
        defer { answering.cancel() }
        let central = try await Self.central(lab, pairing: PairingConfiguration(ioCapabilities: .keyboardDisplay, agent: agent))
        let (peripheral, characteristic) = try await Self.protected(lab, central)
        do {
            let value = try await peripheral.readValue(for: characteristic)
            Issue.record("read \(value) without an authenticated key")
        } catch {
            #expect("\(error)".contains("Numeric Comparison Failed"), "\(error)")
        }
        #expect(numbers.value.withLock { $0.count } == 1)
        _ = try await lab.waitFor("pairing_failure", timeout: hangGuard)
        #expect(!lab.events.contains { $0.name == "encryption" && $0.bool("encrypted") == true }, "\(lab.events)")
        #expect(await peripheral.linkSecurity == .none)
        await central.cancelConnection(peripheral)
    }

    @Test("Passkey Entry the other way: we display a fixed passkey, Bumble types it", .timeLimit(.minutes(20)))
    func weDisplayPasskey() async throws {
        let lab = try await InteropLab.start(role: "peripheral", arguments: ["--protected-auth", "--io", "keyboard", "--mitm",
                                                                             "--passkey", "24680"])
        defer { lab.stop() }
        let agent = PairingAgent(), shown = LockedBox<[UInt32]>([])
        let watching = Task {
            for await request in agent {
                if case .displayPasskey(let passkey) = request.kind { shown.value.withLock { $0.append(passkey) } }
            }
        }
        defer { watching.cancel() }
        let central = try await Self.central(lab, pairing: PairingConfiguration(ioCapabilities: .display, requiresMITM: true,
                                                                                passkey: 24_680, agent: agent))
        let (peripheral, characteristic) = try await Self.protected(lab, central)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try await peripheral.readValue(for: characteristic) == Array("attune-encrypted".utf8))
        let elapsed = clock.now - started
        let typed = try await lab.waitFor("passkey_entered", timeout: hangGuard)
        #expect(typed.int("number") == 24_680)
        #expect(shown.value.withLock { $0 } == [24_680], "the agent was shown the passkey")
        #expect(await peripheral.linkSecurity.authenticated)
        print("pairing (LE SC Passkey Entry, we display): read with pairing took \(elapsed)")
        await central.cancelConnection(peripheral)
    }
}
