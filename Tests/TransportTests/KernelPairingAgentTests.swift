import HCI
import Testing
@testable import Transport

@Suite struct KernelPairingAgentTests {
    // User Confirmation Request on index 1 from LE public 00:AA:01:00:00:00,
    // confirm hint 1 (Just Works), value 0.
    static let justWorks: [UInt8] = [0x0F, 0x00, 0x01, 0x00, 0x0C, 0x00,
                                     0x00, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x01, 0x01, 0, 0, 0, 0]

    @Test func readsAJustWorksRequest() throws {
        let request = try #require(KernelPairingAgent.parse(Self.justWorks))
        #expect(request.index == 1)
        #expect(request.address == BluetoothAddress("00:AA:01:00:00:00"))
        #expect(request.addressInfo == [0x00, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x01])
        #expect(request.justWorks)
    }

    @Test func refusesNumericComparison() throws {
        var packet = Self.justWorks
        packet[13] = 0
        #expect(try #require(KernelPairingAgent.parse(packet)).justWorks == false)
    }

    @Test func ignoresOtherEventsAndDamagedPackets() {
        var other = Self.justWorks
        other[0] = 0x10
        #expect(KernelPairingAgent.parse(other) == nil)
        for length in 0..<Self.justWorks.count {
            #expect(KernelPairingAgent.parse(Array(Self.justWorks.prefix(length))) == nil)
        }
        var lying = Self.justWorks
        lying[4] = 0x40
        #expect(KernelPairingAgent.parse(lying) == nil)
    }

    @Test func buildsTheReplyHeader() {
        #expect(KernelPairingAgent.header(KernelPairingAgent.userConfirmReply, index: 1, length: 7) == [0x1C, 0x00, 0x01, 0x00, 0x07, 0x00])
    }
}
