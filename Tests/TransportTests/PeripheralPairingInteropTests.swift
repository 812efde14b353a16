import Attune
import Foundation
import HCI
import Testing

/// The peripheral half of pairing: a Bumble central pairs with our ``PeripheralManager``
/// over our userland host, and our Security Manager answers the controller's LTK request
/// with the key of the pairing in progress.
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
        let deadline = ContinuousClock.now + .seconds(10)
        while manager.state != .poweredOn, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(manager.state == .poweredOn, "\(manager.status)")
        _ = try await manager.add(PublicAPIPeripheralInteropTests.database)
        try await manager.startAdvertising(localName: "AttunePairing")

        let result = try await lab.run("connect-pair AttunePairing", timeout: .seconds(40))
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
}
