import Testing
@testable import ATT
import HexTestSupport

@Suite struct BluetoothUUIDTests {
    @Test func sixteenBitThroughTheBaseUUID() {
        let hr = BluetoothUUID(0x180D)
        #expect(hr.description == "180D")
        #expect(hr.fullString == "0000180D-0000-1000-8000-00805F9B34FB")
        #expect(hr == BluetoothUUID("0000180d-0000-1000-8000-00805f9b34fb")!)
        #expect(hr.hashValue == BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB")!.hashValue)
        #expect(BluetoothUUID("0000180d-0000-1000-8000-00805f9b34fb")!.shortened.width == .bits16)
        #expect(hr.name == "Heart Rate")
    }

    @Test func parsing() {
        #expect(BluetoothUUID("180D") == BluetoothUUID(0x180D))
        #expect(BluetoothUUID("0x2a37")?.uint16 == 0x2A37)
        #expect(BluetoothUUID("12345678")?.width == .bits32)
        #expect(BluetoothUUID("12345678")?.uint32 == 0x1234_5678)
        #expect(BluetoothUUID("12345678")?.uint16 == nil)
        #expect(BluetoothUUID("xyz") == nil)
        #expect(BluetoothUUID("180") == nil)
        #expect(BluetoothUUID("0000180d-0000-1000-8000-00805f9b34f") == nil)
        #expect(BluetoothUUID("0000180d00001000800000805f9b34fb") == BluetoothUUID(0x180D))
        let custom = BluetoothUUID("12345678-9ABC-DEF0-1234-56789ABCDEF0")!
        #expect(custom.description == "12345678-9ABC-DEF0-1234-56789ABCDEF0")
        #expect(custom.uint16 == nil && !custom.isBaseDerived)
    }

    @Test func wireFormIsLittleEndian() {
        #expect(BluetoothUUID(0x2803).littleEndianBytes == [0x03, 0x28])
        #expect(BluetoothUUID(uint32: 0x1234_5678).littleEndianBytes == [0x78, 0x56, 0x34, 0x12])
        let wire = bytes("fb349b5f80000080001000000d180000")
        let decoded = BluetoothUUID(littleEndian: wire[...])!
        #expect(decoded == BluetoothUUID(0x180D))
        #expect(decoded.width == .bits128)
        #expect(decoded.littleEndianBytes == wire)
        #expect(BluetoothUUID(uint32: 0x180D).attForm.width == .bits128)
        #expect(BluetoothUUID(littleEndian: [1, 2, 3][...]) == nil)
    }

    @Test func handleRanges() {
        #expect(AttributeHandleRange.all.isValid)
        #expect(AttributeHandleRange(start: 0, end: 5).invalidHandle == 0)
        #expect(AttributeHandleRange(start: 6, end: 5).invalidHandle == 6)
        #expect(AttributeHandleRange(start: 5, end: 5).contains(5))
        #expect(AttributeHandle(0x2A).description == "0x002a")
        #expect(AttributeHandle.max.successor == nil)
    }
}
