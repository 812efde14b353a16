import Testing
@testable import Transport

@Suite struct BluetoothAddressTests {
    @Test func parsesMostSignificantFirstAndStoresLeastSignificantFirst() throws {
        let address = try #require(BluetoothAddress("00:AA:01:02:03:F4"))
        #expect(address.bytes == [0xF4, 0x03, 0x02, 0x01, 0xAA, 0x00])
        #expect(address.description == "00:AA:01:02:03:F4")
        #expect(BluetoothAddress("00:aa:01:02:03:f4") == address)
    }

    @Test(arguments: ["", "00:AA:01:02:03", "00:AA:01:02:03:04:05", "0:AA:01:02:03:04", "GG:AA:01:02:03:04", "00-AA-01-02-03-04", "00:AA:01:02:03:"])
    func rejectsMalformedText(_ text: String) {
        #expect(BluetoothAddress(text) == nil)
    }

    @Test func rejectsWrongByteCount() {
        #expect(BluetoothAddress(littleEndianBytes: [1, 2, 3]) == nil)
        #expect(BluetoothAddress(littleEndianBytes: [UInt8](repeating: 0, count: 7)) == nil)
        #expect(BluetoothAddress.any.description == "00:00:00:00:00:00")
    }
}
