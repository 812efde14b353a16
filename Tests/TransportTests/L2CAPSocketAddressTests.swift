import CBlueZ
import Glibc
import Testing
@testable import Transport

@Suite struct L2CAPSocketAddressTests {
    @Test func buildsSockaddrForTheLEATTChannel() throws {
        let address = try #require(BluetoothAddress("00:AA:01:01:00:01"))
        let raw = L2CAPSocketAddress(address: address, addressType: .random).sockaddr
        #expect(MemoryLayout<sockaddr_l2>.size == 14)
        let bytes = withUnsafeBytes(of: raw) { Array($0) }
        // family 31, psm 0, bdaddr LSB first, cid 4 little-endian, bdaddr_type 2 (LE random)
        #expect(Array(bytes.prefix(13)) == [31, 0, 0, 0, 0x01, 0x00, 0x01, 0x01, 0xAA, 0x00, 0x04, 0x00, 0x02])
        #expect(bytes[0] == UInt8(AF_BLUETOOTH) && bytes[12] == UInt8(BDADDR_LE_RANDOM))
    }

    @Test func publicTypeIsBDADDR_LE_PUBLIC() {
        let raw = L2CAPSocketAddress(address: .any, addressType: .public).sockaddr
        #expect(raw.l2_bdaddr_type == UInt8(BDADDR_LE_PUBLIC))
        #expect(raw.l2_psm == 0)
        #expect(UInt16(littleEndian: raw.l2_cid) == 4)
    }

    @Test func roundTripsThroughTheKernelStructure() throws {
        let original = L2CAPSocketAddress(address: try #require(BluetoothAddress("C0:FF:EE:00:11:22")), addressType: .random)
        #expect(L2CAPSocketAddress(original.sockaddr) == original)
    }

    @Test func refusesNonLEAddressTypesAndFamilies() {
        var raw = L2CAPSocketAddress(address: .any, addressType: .public).sockaddr
        raw.l2_bdaddr_type = 0  // BDADDR_BREDR
        #expect(L2CAPSocketAddress(raw) == nil)
        raw.l2_bdaddr_type = 1
        raw.l2_family = sa_family_t(AF_INET)
        #expect(L2CAPSocketAddress(raw) == nil)
    }

    @Test func mapsHCIAddressTypes() {
        #expect(LEAddressType(hciValue: 0) == .public)
        #expect(LEAddressType(hciValue: 1) == .random)
        #expect(LEAddressType(hciValue: 2) == .public)
        #expect(LEAddressType(hciValue: 3) == .random)
        #expect(LEAddressType(hciValue: 0xFF) == nil)
        #expect(LEAddressType.random.hciValue == 1)
    }
}
