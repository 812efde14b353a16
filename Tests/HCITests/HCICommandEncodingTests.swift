import HCI
import Testing

/// Command bytes checked against the parameter layouts in Vol 4 Part E §7.
@Suite("HCI command encoding")
struct HCICommandEncodingTests {
    let random = BluetoothAddress(0xC0, 0x11, 0x22, 0x33, 0x44, 0x55)
    let peer = BluetoothAddress(0xF0, 0xA7, 0x7E, 0x00, 0x00, 0x01)

    @Test("opcodes and fixed frames")
    func simpleCommands() {
        #expect(Reset().h4Frame == [0x01, 0x03, 0x0C, 0x00])
        #expect(LECreateConnectionCancel().h4Frame == [0x01, 0x0E, 0x20, 0x00])
        #expect(ReadBDADDR().h4Frame == [0x01, 0x09, 0x10, 0x00])
        #expect(LEReadBufferSizeV2().h4Frame == [0x01, 0x60, 0x20, 0x00])
        #expect(SetEventMask().h4Frame == [0x01, 0x01, 0x0C, 0x08, 0x90, 0x80, 0x00, 0x02, 0x00, 0x80, 0x00, 0x20])
        #expect(LESetRandomAddress(address: random).h4Frame == [0x01, 0x05, 0x20, 0x06, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
        #expect(Disconnect(connectionHandle: 0x0040, reason: 0x13).h4Frame == [0x01, 0x06, 0x04, 0x03, 0x40, 0x00, 0x13])
    }

    @Test("legacy advertising data is always 32 parameter bytes, and longer data is refused")
    func advertisingDataPadding() throws {
        let command = try #require(LESetAdvertisingData(data: [0x02, 0x01, 0x06]))
        let frame = command.h4Frame
        #expect(frame.count == 4 + 32)
        #expect(Array(frame[0..<8]) == [0x01, 0x08, 0x20, 32, 3, 0x02, 0x01, 0x06])
        #expect(frame[8...].allSatisfy { $0 == 0 })
        #expect(LESetAdvertisingData(data: Array(repeating: 0, count: 32)) == nil)
        #expect(LESetScanResponseData(data: [])?.h4Frame.prefix(5) == [0x01, 0x09, 0x20, 32, 0])
    }

    @Test("LE Set Extended Advertising Parameters: 25 bytes with 24-bit intervals")
    func extendedAdvertisingParameters() {
        let frame = LESetExtendedAdvertisingParameters(primaryIntervalMin: 0x000030, primaryIntervalMax: 0x010040,
                                                       ownAddressType: .random).h4Frame
        #expect(frame == [0x01, 0x36, 0x20, 25,
                          0x00, 0x13, 0x00, 0x30, 0x00, 0x00, 0x40, 0x00, 0x01, 0x07, 0x01, 0x00,
                          0, 0, 0, 0, 0, 0, 0x00, 0x7F, 0x01, 0x00, 0x01, 0x00, 0x00])
    }

    @Test("LE Set Extended Advertising Enable lists its sets")
    func extendedAdvertisingEnable() {
        #expect(LESetExtendedAdvertisingEnable(enable: true, sets: [.init(advertisingHandle: 2, duration: 0x0102, maxExtendedAdvertisingEvents: 3)]).h4Frame
                == [0x01, 0x39, 0x20, 6, 1, 1, 2, 0x02, 0x01, 3])
        #expect(LESetExtendedAdvertisingEnable(enable: false, sets: []).h4Frame == [0x01, 0x39, 0x20, 2, 0, 0])
    }

    @Test("LE Create Connection: 25 bytes, peer address least significant first")
    func createConnection() {
        let frame = LECreateConnection(peerAddressType: 1, peerAddress: peer, ownAddressType: .random).h4Frame
        #expect(frame == [0x01, 0x0D, 0x20, 25, 0x10, 0x00, 0x10, 0x00, 0x00, 0x01,
                          0x01, 0x00, 0x00, 0x7E, 0xA7, 0xF0, 0x01,
                          0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00, 0x00, 0x00, 0x00])
    }

    @Test("LE Extended Create Connection: one PHY block per bit of Initiating_PHYs")
    func extendedCreateConnection() {
        let one = LEExtendedCreateConnection(ownAddressType: .random, peerAddressType: 1, peerAddress: peer).h4Frame
        #expect(one.count == 4 + 10 + 16)
        #expect(Array(one[0..<14]) == [0x01, 0x43, 0x20, 26, 0x00, 0x01, 0x01, 0x01, 0x00, 0x00, 0x7E, 0xA7, 0xF0, 0x01])
        let three = LEExtendedCreateConnection(ownAddressType: .random, peerAddressType: 1, peerAddress: peer,
                                               le2M: .init(), leCoded: .init()).h4Frame
        #expect(three[3] == 10 + 48 && three[13] == 0x07)
    }

    @Test("LE Set Extended Scan Parameters and Enable")
    func extendedScan() {
        #expect(LESetExtendedScanParameters(ownAddressType: .random, le1M: .init(scanType: 1, scanInterval: 0x20, scanWindow: 0x10)).h4Frame
                == [0x01, 0x41, 0x20, 8, 0x01, 0x00, 0x01, 0x01, 0x20, 0x00, 0x10, 0x00])
        #expect(LESetExtendedScanEnable(enable: true, filterDuplicates: 1).h4Frame == [0x01, 0x42, 0x20, 6, 1, 1, 0, 0, 0, 0])
    }

    @Test("return parameters decode, and short ones are errors with offsets")
    func returnParameters() throws {
        let sizes = try LEReadBufferSize.decodeReturnParameters([0x00, 0xFB, 0x00, 0x0F][...])
        #expect(sizes.leACLDataPacketLength == 251 && sizes.totalNumLEACLDataPackets == 15)
        #expect(try ReadBDADDR.decodeReturnParameters([0, 6, 5, 4, 3, 2, 1][...]) == BluetoothAddress(1, 2, 3, 4, 5, 6))
        let features = try LEReadLocalSupportedFeatures.decodeReturnParameters([0, 0x00, 0x10, 0, 0, 0, 0, 0, 0][...])
        #expect(features.contains(.extendedAdvertising))
        #expect(throws: HCIDecodingError.self) { try LEReadBufferSize.decodeReturnParameters([0x00, 0xFB][...]) }
        #expect(throws: HCIDecodingError.self) { try ReadLocalSupportedCommands.decodeReturnParameters([0x00, 1, 2][...]) }
    }
}
