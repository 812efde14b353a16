import SensorDecoding
import Testing

/// `/set` payloads as characteristic bytes: the formats read backwards, hostile text refused.
@Suite struct ValueEncodingTests {
    @Test func numbersAreLittleEndianAndRangeChecked() throws {
        #expect(try ValueEncoding.bytes(Array("255".utf8), format: .u8) == [0xFF])
        #expect(try ValueEncoding.bytes(Array(" 4660\n".utf8), format: .u16le) == [0x34, 0x12])
        #expect(try ValueEncoding.bytes(Array("-2".utf8), format: .s16le) == [0xFE, 0xFF])
        #expect(try ValueEncoding.bytes(Array("1.5".utf8), format: .float32le) == [0x00, 0x00, 0xC0, 0x3F])
        #expect(try ValueEncoding.bytes(Array("-2147483648".utf8), format: .s32le) == [0x00, 0x00, 0x00, 0x80])
        for (text, format) in [("256", ValueFormat.u8), ("-1", .u16le), ("32768", .s16le), ("4294967296", .u32le),
                               ("99999999999999999999999", .u32le), ("1e3", .u8), ("", .u8), ("nan", .float32le),
                               ("inf", .float32le)] {
            #expect(throws: ValueEncoding.Refusal.self, "\(text) as \(format)") {
                try ValueEncoding.bytes(Array(text.utf8), format: format)
            }
        }
    }

    @Test func textAndHex() throws {
        #expect(try ValueEncoding.bytes([0xFF, 0x00, 0x41], format: .utf8) == [0xFF, 0x00, 0x41], "utf8 writes the payload as it came")
        #expect(try ValueEncoding.bytes(Array("0a:0B 0c".utf8), format: .hex) == [0x0A, 0x0B, 0x0C])
        #expect(try ValueEncoding.bytes(Array("0048".utf8), format: .heartRateMeasurement) == [0x00, 0x48])
        for text in ["abc", "zz", String(repeating: "00", count: 513)] {
            #expect(throws: ValueEncoding.Refusal.self) { try ValueEncoding.bytes(Array(text.utf8), format: .hex) }
        }
    }
}
