import ATT
import HCI
import Testing

@Suite struct AdvertisingDataTests {
    @Test func decodesCommonTypes() throws {
        let bytes: [UInt8] = [
            0x02, 0x01, 0x06,                         // flags
            0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18,       // complete 16-bit UUIDs 180D 180F
            0x05, 0x09, 0x41, 0x74, 0x74, 0x6E,       // complete local name "Attn"
            0x02, 0x0A, 0xF4,                         // TX power -12 dBm
            0x03, 0x19, 0x41, 0x03,                   // appearance 0x0341
            0x05, 0xFF, 0x4C, 0x00, 0x01, 0x02,       // manufacturer 0x004C, 01 02
            0x04, 0x16, 0x0F, 0x18, 0x64,             // service data 180F: 0x64
            0x11, 0x07] + (0..<16).map { UInt8($0) }  // complete 128-bit UUID
        let ad = AdvertisingData(decoding: bytes[...])
        #expect(ad.framingError == nil)
        #expect(ad.structures.count == 8)
        #expect(ad.flags == 0x06)
        #expect(ad.localName == "Attn")
        #expect(ad.txPowerLevel == -12)
        #expect(ad.appearance == 0x0341)
        #expect(ad.manufacturerData?.companyID == 0x004C)
        #expect(ad.manufacturerData.map { Array($0.data) } == [1, 2])
        #expect(ad.serviceUUIDs.prefix(2) == [BluetoothUUID(0x180D), BluetoothUUID(0x180F)])
        #expect(ad.serviceUUIDs.last == BluetoothUUID(littleEndian: (0..<16).map { UInt8($0) }[...]))
        #expect(ad.values.contains(.serviceData(BluetoothUUID(0x180F), [0x64][...])))
        #expect(ad.structures[2].offset == 9)
    }

    @Test func malformedStructureFailsAlone() throws {
        let bytes: [UInt8] = [0x04, 0x03, 0x0D, 0x18, 0x0F, // odd-length UUID list
                              0x03, 0x09, 0x48, 0x69]       // name "Hi"
        let ad = AdvertisingData(decoding: bytes[...])
        #expect(ad.structures.count == 2)
        guard case let .failure(error) = ad.structures[0].value else {
            Issue.record("odd UUID list must fail")
            return
        }
        #expect(error.offset == 0)
        #expect(ad.localName == "Hi")
        #expect(ad.framingError == nil)
    }

    @Test func lengthPastTheEndStopsWithAnOffset() {
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x09, 0x09, 0x41]
        let ad = AdvertisingData(decoding: bytes[...])
        #expect(ad.structures.count == 1)
        #expect(ad.framingError?.offset == 3)
        #expect(ad.flags == 0x06)
    }

    @Test func zeroLengthEndsSignificantPart() {
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x00, 0xFF, 0xFF, 0xFF]
        let ad = AdvertisingData(decoding: bytes[...])
        #expect(ad.structures.count == 1)
        #expect(ad.framingError == nil)
    }

    @Test func everyTruncationDecodesSoftly() {
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x03, 0x19, 0x41, 0x03]
        for cut in 0...bytes.count {
            let ad = AdvertisingData(decoding: bytes[..<cut])
            for s in ad.structures { _ = s.value }
            #expect(ad.structures.count <= 3)
        }
    }
}
