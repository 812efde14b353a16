import HCI
import Testing

/// The encryption commands and events of an LE host (Vol 4 Part E §7.8.24–26, §7.7.8,
/// §7.7.39, §7.7.65.5), byte for byte, and how the host carries them with pairing enabled.
@Suite("HCI encryption: commands, events and SMP delivery")
struct HCIEncryptionTests {
    static let key = LinkKeyMaterial(Array(0x00...0x0F))!

    @Test("LE Enable Encryption: handle, Random_Number, Encrypted_Diversifier, Long_Term_Key (§7.8.24)")
    func enableEncryption() {
        let command = LEEnableEncryption(connectionHandle: 0x0040, random: 0x0807_0605_0403_0201,
                                         encryptedDiversifier: 0xBEEF, longTermKey: Self.key)
        #expect(command.h4Frame == [0x01, 0x19, 0x20, 28, 0x40, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0xEF, 0xBE]
                + Array(0x00...0x0F))
    }

    @Test("LE Long Term Key Request Reply and Negative Reply (§7.8.25, §7.8.26)")
    func longTermKeyReplies() {
        #expect(LELongTermKeyRequestReply(connectionHandle: 0x0001, longTermKey: Self.key).h4Frame
                == [0x01, 0x1A, 0x20, 18, 0x01, 0x00] + Array(0x00...0x0F))
        #expect(LELongTermKeyRequestNegativeReply(connectionHandle: 0x0EFF).h4Frame == [0x01, 0x1B, 0x20, 2, 0xFF, 0x0E])
    }

    @Test("keys print as <redacted> from the key, the commands and the requests that hold them")
    func keysRedacted() {
        let texts = [String(describing: Self.key), String(reflecting: Self.key),
                     String(describing: LEEnableEncryption(connectionHandle: 1, random: 0, encryptedDiversifier: 0, longTermKey: Self.key)),
                     String(describing: HostRequest.longTermKeyReply(handle: 1, longTermKey: Self.key))]
        for text in texts {
            #expect(text.contains("<redacted>"), "\(text)")
            #expect(!text.contains("15"), "\(text)")
        }
        #expect(LinkKeyMaterial([1, 2, 3]) == nil)
    }

    @Test("Encryption Key Refresh Complete and LE Long Term Key Request decode (§7.7.39, §7.7.65.5)")
    func eventsDecode() throws {
        let refresh = try EncryptionKeyRefreshComplete(decoding: [0x00, 0x41, 0xF0])
        #expect(refresh == EncryptionKeyRefreshComplete(status: .success, handle: 0x0041))
        let request = try LELongTermKeyRequest(decoding: [0x02, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x34, 0x12])
        #expect(request == LELongTermKeyRequest(handle: 2, random: 0x0807_0605_0403_0201, encryptedDiversifier: 0x1234))
        #expect(throws: HCIDecodingError.self) { try LELongTermKeyRequest(decoding: [0x02, 0x00, 1, 2, 3]) }
        #expect(throws: HCIDecodingError.self) { try EncryptionKeyRefreshComplete(decoding: [0x00, 0x41]) }
    }

    static func pairingHost(role: UInt8) -> FakeController {
        var controller = FakeController(configuration: HostConfiguration(
            randomAddress: BluetoothAddress(0xC0, 1, 2, 3, 4, 5), pairingEnabled: true))
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01, role: role))
        return controller
    }

    @Test("with pairing enabled, SMP PDUs are delivered, not refused, and go out on CID 0x0006")
    func smpDelivered() {
        var controller = Self.pairingHost(role: 0)
        controller.receive(FakeController.acl(handle: 0x01, channel: 6, payload: [0x0B, 0x0D]))
        #expect(controller.delivered.contains(.securityManagerData(handle: 0x01, pdu: [0x0B, 0x0D])))
        #expect(!controller.delivered.contains(.pairingRefused(handle: 0x01)))
        #expect(controller.sentFrames(handle: 0x01, channel: 6).isEmpty)
        controller.perform(.sendL2CAP(handle: 0x01, channel: .securityManager, payload: [0x01, 0x03, 0x00, 0x0D, 0x10, 0x07, 0x07]), id: 7)
        #expect(controller.sentFrames(handle: 0x01, channel: 6) == [[0x01, 0x03, 0x00, 0x0D, 0x10, 0x07, 0x07]])
    }

    @Test("with pairing enabled the LE event mask lets LE Long Term Key Request through; off, it stays masked")
    func eventMask() {
        let on = Self.pairingHost(role: 0)
        let off = HCIHostHostileInputTests.connected([0x01])
        let mask = { (c: FakeController) in c.sent.first { $0.count >= 3 && $0[1] == 0x01 && $0[2] == 0x20 } }
        #expect(mask(on) == LESetEventMask(mask: LESetEventMask.leHost | 1 << 4).h4Frame)
        #expect(mask(off) == LESetEventMask().h4Frame)
    }

    @Test("central: startEncryption sends LE Enable Encryption, completes on Command Status; Encryption Change sets the state")
    func centralEncrypts() {
        var controller = Self.pairingHost(role: 0)
        #expect(controller.host.isEncrypted(0x01) == false)
        controller.perform(.startEncryption(handle: 0x01, random: 0, encryptedDiversifier: 0, longTermKey: Self.key), id: 9)
        #expect(controller.sent.last == LEEnableEncryption(connectionHandle: 1, random: 0, encryptedDiversifier: 0, longTermKey: Self.key).h4Frame)
        controller.receive(FakeController.commandStatus(0x2019))
        #expect(controller.completions[HostRequestID(9)] == .success(.done))
        controller.receive([0x04, 0x08, 0x04, 0x00, 0x01, 0x00, 0x01])
        #expect(controller.host.isEncrypted(0x01) == true)
        #expect(controller.delivered.contains { if case .encryptionChanged(let c) = $0 { c.handle == 1 && c.encryptionEnabled == 1 } else { false } })
        controller.receive([0x04, 0x30, 0x03, 0x00, 0x01, 0x00])
        #expect(controller.delivered.contains(.encryptionKeyRefreshed(EncryptionKeyRefreshComplete(status: .success, handle: 1))))
        #expect(controller.host.isEncrypted(0x01) == true)
    }

    @Test("Encryption Change for a handle with no connection is a warning, not an event; a failed one leaves the state")
    func encryptionChangeHostile() {
        var controller = Self.pairingHost(role: 0)
        controller.receive([0x04, 0x08, 0x04, 0x00, 0x07, 0x00, 0x01])
        #expect(!controller.delivered.contains { if case .encryptionChanged = $0 { true } else { false } })
        #expect(controller.warnings.contains(.eventForUnknownHandle("Encryption Change", 0x07)))
        controller.receive([0x04, 0x08, 0x04, 0x06, 0x01, 0x00, 0x01])
        #expect(controller.host.isEncrypted(0x01) == false, "an error status does not turn encryption on")
        controller.receive([0x04, 0x30, 0x03, 0x00, 0x09, 0x00])
        #expect(controller.warnings.contains(.eventForUnknownHandle("Encryption Key Refresh Complete", 0x09)))
        controller.receive([0x04, 0x30, 0x01, 0x00])
        #expect(controller.warnings.contains { if case .malformedEvent = $0 { true } else { false } })
        #expect(controller.closed == nil)
    }

    @Test("a refused LE Enable Encryption fails its request with the HCI status; a peripheral may not start encryption")
    func encryptionRefused() {
        var controller = Self.pairingHost(role: 0)
        controller.perform(.startEncryption(handle: 0x01, random: 0, encryptedDiversifier: 0, longTermKey: Self.key), id: 3)
        controller.receive(FakeController.commandStatus(0x2019, status: 0x06))
        #expect(controller.completions[HostRequestID(3)] == .failure(.commandFailed(LEEnableEncryption.opcode, HCIStatus.pinOrKeyMissing)))
        var peripheral = Self.pairingHost(role: 1)
        peripheral.perform(.startEncryption(handle: 0x01, random: 0, encryptedDiversifier: 0, longTermKey: Self.key), id: 4)
        guard case .failure(.invalidRequest) = peripheral.completions[HostRequestID(4)] else {
            Issue.record("\(String(describing: peripheral.completions[HostRequestID(4)]))")
            return
        }
    }

    @Test("peripheral: LE Long Term Key Request is delivered; replies go out with the key or without")
    func peripheralAnswers() {
        var controller = Self.pairingHost(role: 1)
        controller.receive([0x04, 0x3E, 0x0D, 0x05, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00])
        #expect(controller.delivered.contains(.longTermKeyRequested(LELongTermKeyRequest(handle: 1, random: 0, encryptedDiversifier: 0))))
        controller.perform(.longTermKeyReply(handle: 0x01, longTermKey: Self.key), id: 5)
        #expect(controller.sent.last == LELongTermKeyRequestReply(connectionHandle: 1, longTermKey: Self.key).h4Frame)
        controller.receive(FakeController.commandComplete(0x201A, [0x00, 0x01, 0x00]))
        #expect(controller.completions[HostRequestID(5)] == .success(.done))
        controller.perform(.longTermKeyNegativeReply(handle: 0x01), id: 6)
        #expect(controller.sent.last == [0x01, 0x1B, 0x20, 0x02, 0x01, 0x00])
        // A request for a handle that is not connected is a warning, not an event.
        controller.receive([0x04, 0x3E, 0x0D, 0x05, 0x09, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00])
        #expect(!controller.delivered.contains { if case .longTermKeyRequested(let r) = $0 { r.handle == 9 } else { false } })
    }
}
