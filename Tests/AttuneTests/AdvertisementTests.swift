import Capture
import Foundation
import Testing
@testable import Attune

/// Advertising reports from the capture fixtures, through the shared AD parser.
@Suite("Advertisements")
struct AdvertisementTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/captures")

    /// Every advertising report of a capture, in order, as Advertisements.
    static func advertisements(in name: String) throws -> [Advertisement] {
        var reader = try CaptureReader(path: fixtures.appendingPathComponent(name).path)
        var found: [Advertisement] = []
        while let record = try reader.next() {
            guard record.packetType == .event, let event = try? HCIEvent(decoding: record.payload) else { continue }
            switch event {
            case .leAdvertisingReport(let reports): found += reports.map(Advertisement.init)
            case .leExtendedAdvertisingReport(let reports): found += reports.map(Advertisement.init)
            default: break
            }
        }
        return found
    }

    static let captures = ["h4_rawcentral_external.btsnoop", "h4_rawperipheral_bumble.btsnoop",
                           "kernel/bluez_hr_mtu517.btsnoop", "kernel/gatttool_vs_btgatt.btsnoop"]

    @Test(arguments: captures)
    func everyReportDecodesCleanly(_ name: String) throws {
        let ads = try Self.advertisements(in: name)
        #expect(!ads.isEmpty)
        for ad in ads {
            #expect(ad.errors.isEmpty, "\(ad.errors)")
            #expect(ad.flags != nil)
        }
    }

    @Test func bumbleExtendedAdvertisementAndScanResponse() throws {
        let ads = try Self.advertisements(in: "h4_rawcentral_external.btsnoop")
        try #require(ads.count == 2)
        let primary = ads[0]
        #expect(primary.address == BluetoothAddress("F0:F1:F2:F3:F4:F5"))
        #expect(primary.addressType == .random)
        #expect(primary.rssi == -50)
        #expect(primary.localName == "BumbleLabPeer")
        #expect(primary.isLocalNameComplete)
        #expect(primary.flags == [.leGeneralDiscoverable, .brEDRNotSupported])
        #expect(primary.serviceUUIDs.isEmpty)
        #expect(primary.incompleteServiceUUIDs == [BluetoothUUID(0x180F), BluetoothUUID(0x180D)])
        #expect(primary.txPowerLevel == 0, "the extended report's TX power")
        #expect(primary.isConnectable)
        #expect(!primary.isScanResponse)
        #expect(primary.advertises(anyOf: [BluetoothUUID(0x180D)]))
        #expect(!primary.advertises(anyOf: [BluetoothUUID(0x1810)]))

        let response = ads[1]
        #expect(response.isScanResponse)
        #expect(!response.isConnectable)
        var merged = primary
        merged.merge(scanResponse: response)
        #expect(merged.isConnectable, "connectability comes from the advertisement, not the scan response")
        #expect(merged.scanResponseData == response.data)
        #expect(merged.identifier == PeripheralIdentifier.make(address: primary.address, type: .random))
    }

    @Test func bumblePeripheralCompleteServiceList() throws {
        let ad = try #require(try Self.advertisements(in: "h4_rawperipheral_bumble.btsnoop").first)
        #expect(ad.address == BluetoothAddress("C0:DE:C0:DE:00:02"))
        #expect(ad.localName == "RawH4Periph")
        #expect(ad.serviceUUIDs == [BluetoothUUID(0x180F)])
        #expect(ad.incompleteServiceUUIDs.isEmpty)
        #expect(ad.data.structures.map(\.type) == [.flags, .completeLocalName, .completeServiceUUIDs16])
    }

    @Test func kernelLegacyAdvertisement() throws {
        let ads = try Self.advertisements(in: "kernel/gatttool_vs_btgatt.btsnoop")
        #expect(ads.count >= 3)
        let ad = ads[0]
        #expect(ad.address == BluetoothAddress("00:AA:01:01:00:01"))
        #expect(ad.addressType == .public)
        #expect(ad.rssi == nil, "127 means the controller did not measure it")
        #expect(ad.flags == [.brEDRNotSupported])
        #expect(ad.txPowerLevel == 0)
        #expect(ad.isConnectable && ad.isScannable)
        #expect(ad.localName == nil)
    }

    static func advertisement(_ bytes: [UInt8]) -> Advertisement {
        Advertisement(address: BluetoothAddress(rawValue: 1), addressType: .random, rssi: -70,
                      data: AdvertisingData(decoding: bytes[...]), isConnectable: true, isScannable: false,
                      isScanResponse: false)
    }

    @Test func everyTypedField() {
        let ad = Self.advertisement([
            0x02, 0x01, 0x05,                                     // flags
            0x05, 0x08, 0x53, 0x65, 0x6E, 0x73,                   // shortened name "Sens"
            0x05, 0x04, 0x78, 0x56, 0x34, 0x12,                   // incomplete 32-bit: 0x12345678
            0x11, 0x07] + Array(1...16) + [                      // complete 128-bit
            0x03, 0x14, 0x0A, 0x18,                               // solicitation 0x180A
            0x05, 0x16, 0x0F, 0x18, 0x64, 0x01,                   // service data 180F: 64 01
            0x07, 0x20, 0xEF, 0xBE, 0xAD, 0xDE, 0xAA, 0xBB,       // service data 32-bit DEADBEEF: AA BB
            0x05, 0xFF, 0x4C, 0x00, 0x02, 0x15,                   // manufacturer 0x004C: 02 15
            0x02, 0x0A, 0xF4,                                     // TX power -12
            0x03, 0x19, 0x41, 0x03,                               // appearance 0x0341
        ])
        #expect(ad.errors.isEmpty, "\(ad.errors)")
        #expect(ad.flags == [.leLimitedDiscoverable, .brEDRNotSupported])
        #expect(ad.localName == "Sens")
        #expect(!ad.isLocalNameComplete)
        #expect(ad.incompleteServiceUUIDs == [BluetoothUUID(uint32: 0x1234_5678)])
        #expect(ad.incompleteServiceUUIDs.first?.width == .bits32)
        #expect(ad.serviceUUIDs == [BluetoothUUID(littleEndian: Array(1...16)[...])!])
        #expect(ad.solicitedServiceUUIDs == [BluetoothUUID(0x180A)])
        #expect(ad.serviceData == [BluetoothUUID(0x180F): [0x64, 0x01],
                                   BluetoothUUID(uint32: 0xDEAD_BEEF): [0xAA, 0xBB]])
        #expect(ad.manufacturerData == [0x004C: [0x02, 0x15]])
        #expect(ad.txPowerLevel == -12)
        #expect(ad.appearance == 0x0341)
    }

    @Test func malformedStructuresFailOneAtATime() {
        let ad = Self.advertisement([
            0x04, 0x03, 0x0D, 0x18, 0x0F,   // 16-bit list with an odd byte: dropped
            0x02, 0x0A, 0x00,               // TX power 0 dBm
            0x06, 0x09, 0x50, 0x6F, 0x6C, 0x61, 0x72,   // "Polar"
            0x03, 0x0A, 0x01, 0x02,         // TX power with 2 data bytes: dropped
            0x02, 0xFF, 0x4C,               // manufacturer data without a whole company id: dropped
            0x09, 0x16, 0x0D,               // length runs past the end: the walk stops here
        ])
        #expect(ad.serviceUUIDs.isEmpty)
        #expect(ad.localName == "Polar")
        #expect(ad.txPowerLevel == 0)
        #expect(ad.manufacturerData.isEmpty)
        #expect(ad.errors.map(\.offset) == [0, 15, 19, 22])
        #expect(ad.errors.last?.description.contains("truncated AD structure") == true)
    }

    @Test func completeNameWinsOverShortenedInEitherOrder() {
        for bytes: [UInt8] in [[0x03, 0x08, 0x41, 0x42, 0x04, 0x09, 0x41, 0x42, 0x43],
                               [0x04, 0x09, 0x41, 0x42, 0x43, 0x03, 0x08, 0x41, 0x42]] {
            let ad = Self.advertisement(bytes)
            #expect(ad.localName == "ABC")
            #expect(ad.isLocalNameComplete)
        }
    }

    /// Random bytes never crash the parser or the Advertisement built on it.
    @Test func randomBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0...64, using: &generator)
            let ad = Self.advertisement((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(ad.errors.count <= ad.data.structures.count + 1)
        }
    }
}
