import Attune
import Capture
import ControllerTestSupport
import Foundation
import HCI
import InteropTestSupport
import Testing

/// Pairing through the public API: our central over our userland host (H4) reads a
/// characteristic that Bumble serves only over an encrypted link. The engine's one retry
/// after Insufficient Encryption raises security, our Security Manager pairs with Bumble's
/// (LE Secure Connections Just Works), the link encrypts, and the read returns the value.
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct PairingInteropTests {
    static let protectedService = BluetoothUUID("7a7e0020-5d4c-4f8e-9a64-0c3f1e2b6a10")!
    static let protectedCharacteristic = BluetoothUUID("7a7e0021-5d4c-4f8e-9a64-0c3f1e2b6a10")!

    @Test("our central reads an encryption-only value: Secure Connections Just Works with Bumble, then the read succeeds")
    func readPairsJustWorks() async throws {
        // Device 0 is the peripheral we pair with; devices 1 and 2 pair with each other
        // afterwards, for Bumble's own figure in the same run.
        let lab = try await InteropLab.start(role: "peripheral,peripheral,central", devices: 3, arguments: ["--protected"])
        defer { lab.stop() }
        let capturePath = FileManager.default.temporaryDirectory
            .appendingPathComponent("api-pairing-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: capturePath) }
        let central = try await PublicAPIInteropTests.central(lab, snoop: try SnoopFile(path: capturePath))
        let name = try #require(lab.ready.device(0, "name"))
        let peripheral = try #require(try await PublicAPIInteropTests.find([name], with: central).first)
        try await central.connect(peripheral, timeout: hangGuard)

        let services = try await peripheral.discoverServices([Self.protectedService])
        let service = try #require(services.first)
        let characteristics = try await peripheral.discoverCharacteristics([Self.protectedCharacteristic], for: service)
        let protected = try #require(characteristics.first)

        let clock = ContinuousClock()
        let started = clock.now
        let value = try await peripheral.readValue(for: protected)
        let elapsed = clock.now - started
        #expect(value == Array("attune-encrypted".utf8))

        // Bumble's side: it paired (keys distributed, so it bonded) and saw the link encrypted.
        let pairingStart = try await lab.waitFor("pairing_start", timeout: hangGuard)
        let paired = try await lab.waitFor("paired", timeout: hangGuard)
        #expect(paired.bool("ltk") == true, "\(paired)")
        let encryption = try await lab.waitFor("encryption", timeout: hangGuard)
        #expect(encryption.bool("encrypted") == true)
        #expect(!lab.events.contains { $0.name == "pairing_failure" }, "\(lab.events)")
        let bumbleSeconds = (Self.time(paired) ?? 0) - (Self.time(pairingStart) ?? 0)

        // Bumble's own figure: its central pairs with its second peripheral, the same way.
        let address = try #require(lab.ready.device(1, "address"))
        let between = try await lab.run("connect-pair \(address) read", timeout: hangGuard)
        #expect(between.bool("paired") == true, "\(between)")
        #expect(between.line.contains(hexString(Array("attune-encrypted".utf8))), "\(between)")
        print("pairing (LE SC Just Works): our central with Bumble's peripheral, read with pairing \(elapsed), "
              + "Bumble saw pairing start → keys in \(Int(bumbleSeconds * 1000)) ms; "
              + "Bumble central with Bumble peripheral: pair() took \(between.line)")

        await central.cancelConnection(peripheral)
        _ = try await lab.waitFor("disconnected", timeout: hangGuard)
        try await lab.finishAndVerifyCaptures()

        // Our capture: the SMP exchange in order of first appearance, and the key of LE
        // Enable Encryption masked.
        let smp = try Self.smpCodes(capturePath)
        let expected: [(sent: Bool, code: UInt8)] = [
            (true, 0x01), (false, 0x02),  // Pairing Request, Response
            (true, 0x0C), (false, 0x0C),  // Pairing Public Key, both ways
            (false, 0x03),                // the responder's Pairing Confirm (Cb)
            (true, 0x04), (false, 0x04),  // Pairing Random, both ways
            (true, 0x0D), (false, 0x0D),  // DHKey Check, both ways
        ]
        var position = 0
        for pdu in smp where position < expected.count && pdu == expected[position] { position += 1 }
        #expect(position == expected.count, "SMP in the capture: \(smp.map { "\($0.sent ? ">" : "<")\($0.code)" })")
        let encryptCommands = try Self.commands(capturePath, opcode: LEEnableEncryption.opcode.rawValue)
        #expect(encryptCommands.count == 1)
        #expect(encryptCommands.allSatisfy { $0.suffix(16).allSatisfy { $0 == 0 } }, "the LTK is masked in the capture")
    }

    static func time(_ event: InteropLab.Event) -> Double? {
        ((try? JSONSerialization.jsonObject(with: Data(event.line.utf8))) as? [String: Any])?["t"] as? Double
    }

    /// (sent by us, SMP code) of every SMP PDU start in a capture: ACL first fragments on CID 0x0006.
    static func smpCodes(_ path: String) throws -> [(sent: Bool, code: UInt8)] {
        var reader = try CaptureReader(path: path)
        var codes: [(sent: Bool, code: UInt8)] = []
        while let record = try reader.next() {
            guard record.packetType == .aclData else { continue }
            let bytes = Array(record.payload)
            // Handle and flags (2), length (2), then the L2CAP header on a first fragment.
            guard bytes.count >= 9, (bytes[1] >> 4) & 0x3 != 0b01 else { continue }
            let channel = UInt16(bytes[6]) | UInt16(bytes[7]) << 8
            if channel == 0x0006 { codes.append((record.direction == .sent, bytes[8])) }
        }
        return codes
    }

    /// The parameters of every command with `opcode` in a capture.
    static func commands(_ path: String, opcode: UInt16) throws -> [[UInt8]] {
        var reader = try CaptureReader(path: path)
        var found: [[UInt8]] = []
        while let record = try reader.next() {
            guard record.packetType == .command, record.direction == .sent else { continue }
            let bytes = Array(record.payload)
            guard bytes.count >= 3, UInt16(bytes[0]) | UInt16(bytes[1]) << 8 == opcode else { continue }
            found.append(Array(bytes.dropFirst(3)))
        }
        return found
    }
}
