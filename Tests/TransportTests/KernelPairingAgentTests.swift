import HCI
import Testing
@testable import Transport

@Suite struct KernelPairingAgentTests {
    // User Confirmation Request on index 1 from LE public 00:AA:01:00:00:00,
    // confirm hint 1 (Just Works), value 0.
    static let justWorks: [UInt8] = [0x0F, 0x00, 0x01, 0x00, 0x0C, 0x00,
                                     0x00, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x01, 0x01, 0, 0, 0, 0]
    static let peer = KernelPeer(adapterIndex: 1, address: BluetoothAddress("00:AA:01:00:00:00")!, addressType: .lePublic)

    static func request(_ bytes: [UInt8]) -> KernelPairingRequest? {
        MgmtPacket(decoding: bytes).flatMap(KernelPairingRequest.init)
    }

    @Test func readsAJustWorksRequest() throws {
        let request = try #require(Self.request(Self.justWorks))
        #expect(request == KernelPairingRequest(peer: Self.peer, kind: .justWorks))
        #expect(request.peer.encodedAddress == [0x00, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x01])
    }

    @Test func readsANumericComparisonWithItsValue() throws {
        var packet = Self.justWorks
        packet[13] = 0
        // 123456 = 0x0001E240, little-endian.
        packet.replaceSubrange(14..<18, with: [0x40, 0xE2, 0x01, 0x00])
        #expect(try #require(Self.request(packet)).kind == .numericComparison(123_456))
        #expect(KernelPairingRequest.Kind.numericComparison(4_2).description == "numeric comparison 000042")
    }

    @Test func readsPasskeyRequestAndNotify() throws {
        // User Passkey Request (0x0010): address, LE random type.
        let passkeyRequest: [UInt8] = [0x10, 0x00, 0x00, 0x00, 0x07, 0x00, 0x06, 0x05, 0x04, 0x03, 0x02, 0xC1, 0x02]
        let entry = try #require(Self.request(passkeyRequest))
        #expect(entry.kind == .passkeyEntry)
        #expect(entry.peer == KernelPeer(adapterIndex: 0, address: BluetoothAddress("C1:02:03:04:05:06")!, addressType: .leRandom))
        #expect(entry.needsAnswer)
        // Passkey Notify (0x0017): address, type, passkey 999999 (0x000F423F), entered 2.
        let notify: [UInt8] = [0x17, 0x00, 0x01, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x01,
                               0x3F, 0x42, 0x0F, 0x00, 0x02]
        let display = try #require(Self.request(notify))
        #expect(display.kind == .passkeyDisplay(999_999, entered: 2))
        #expect(!display.needsAnswer)
        #expect(KernelPairingAgent.reply(to: display, with: .accept) == nil, "Passkey Notify takes no reply")
    }

    @Test func ignoresOtherEventsAndDamagedPackets() {
        var other = Self.justWorks
        other[0] = 0x11
        #expect(Self.request(other) == nil)
        for length in 0..<Self.justWorks.count {
            #expect(Self.request(Array(Self.justWorks.prefix(length))) == nil, "cut to \(length)")
        }
        var lying = Self.justWorks
        lying[4] = 0x40
        #expect(Self.request(lying) == nil, "a length beyond the packet")
        var short = Self.justWorks
        short[4] = 0x08
        #expect(Self.request(short) == nil, "a declared length too short for the event")
        var badType = Self.justWorks
        badType[12] = 0x07
        #expect(Self.request(badType) == nil, "an address type mgmt does not define")
    }

    @Test func repliesWithTheRightCommand() throws {
        let confirm = KernelPairingRequest(peer: Self.peer, kind: .numericComparison(1))
        let address: [UInt8] = [0x00, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x01]
        #expect(KernelPairingAgent.reply(to: confirm, with: .accept) == [0x1C, 0x00, 0x01, 0x00, 0x07, 0x00] + address)
        #expect(KernelPairingAgent.reply(to: confirm, with: .reject) == [0x1D, 0x00, 0x01, 0x00, 0x07, 0x00] + address)
        #expect(KernelPairingAgent.reply(to: confirm, with: .passkey(1)) == [0x1D, 0x00, 0x01, 0x00, 0x07, 0x00] + address)
        #expect(KernelPairingAgent.reply(to: confirm, with: nil) == [0x1D, 0x00, 0x01, 0x00, 0x07, 0x00] + address)
        let entry = KernelPairingRequest(peer: Self.peer, kind: .passkeyEntry)
        #expect(KernelPairingAgent.reply(to: entry, with: .passkey(123_456))
                == [0x1E, 0x00, 0x01, 0x00, 0x0B, 0x00] + address + [0x40, 0xE2, 0x01, 0x00])
        #expect(KernelPairingAgent.reply(to: entry, with: .passkey(1_000_000)) == [0x1F, 0x00, 0x01, 0x00, 0x07, 0x00] + address)
        #expect(KernelPairingAgent.reply(to: entry, with: .accept) == [0x1F, 0x00, 0x01, 0x00, 0x07, 0x00] + address)
    }

    @Test func defaultAndFixedPasskeyHandlers() async {
        let justWorks = KernelPairingRequest(peer: Self.peer, kind: .justWorks)
        let comparison = KernelPairingRequest(peer: Self.peer, kind: .numericComparison(5))
        let entry = KernelPairingRequest(peer: Self.peer, kind: .passkeyEntry)
        let plain = JustWorksPairingHandler()
        #expect(plain.ioCapability == nil)
        #expect(await plain.answer(justWorks) == .accept)
        #expect(await plain.answer(comparison) == .reject)
        #expect(await plain.answer(entry) == .reject)
        let fixed = FixedPasskeyPairingHandler(passkey: 1_123_456)
        #expect(fixed.ioCapability == .keyboardOnly)
        #expect(await fixed.answer(entry) == .passkey(123_456))
        #expect(await fixed.answer(justWorks) == .accept)
        #expect(await fixed.answer(comparison) == .reject)
    }

    @Test func aHandlerThatNeverAnswersIsRefusedForAtTheTimeout() async {
        // The handler waits on a stream nobody feeds: only the agent's timer can end the wait.
        let (never, _) = AsyncStream.makeStream(of: Int.self)
        let silent = ClosurePairingHandler(ioCapability: nil) { _ in
            for await _ in never {}
            return .accept
        }
        let request = KernelPairingRequest(peer: Self.peer, kind: .justWorks)
        let answered = await KernelPairingAgent.answer(request, handler: silent, timeout: .milliseconds(1))
        #expect(answered.timedOut)
        #expect(answered.answer == .reject)
        let quick = await KernelPairingAgent.answer(request, handler: JustWorksPairingHandler(), timeout: .seconds(60))
        #expect(!quick.timedOut && quick.answer == .accept)
    }

    @Test func commandHeader() {
        #expect(MgmtPacket.command(0x0018, index: 1, parameters: [0x04]) == [0x18, 0x00, 0x01, 0x00, 0x01, 0x00, 0x04])
        #expect(MgmtPacket.command(0x0018, index: 0, parameters: [UInt8](repeating: 0, count: 65_536)) == nil)
    }
}
