import Testing
@testable import Gateway
import SensorDecoding

/// The `ts` of every published value: seconds since 1970 to the microsecond.
@Suite("Gateway value timestamps")
struct GatewayTimestampTests {
    @Test func secondsToTheMicrosecond() {
        #expect(Gateway.timestampNumber(1_796_042_144.06) == .number(DecodedNumber(significand: 179_604_214_406, exponent: -2)))
        #expect(Gateway.timestampNumber(1_796_042_144.123_456_7) == .number(DecodedNumber(significand: 1_796_042_144_123_457,
                                                                                          exponent: -6)))
        #expect(Gateway.timestampNumber(0) == .number(DecodedNumber(0)))
    }

    @Test func aClockThatIsNotANumberOrOutOfRangeIsNull() {
        #expect(Gateway.timestampNumber(.nan) == .null)
        #expect(Gateway.timestampNumber(.infinity) == .null)
        #expect(Gateway.timestampNumber(1e300) == .null)
    }

    @Test func theRenderedValueCarriesIt() throws {
        let json = Gateway.render(CharacteristicValueDecoder(format: .u8), [72], rssi: -61,
                                  via: "attune-kitchen", lostBefore: 0)
        let ts = try #require(json.split(separator: "\"ts\": ").dropFirst().first?.prefix { $0 != "," && $0 != "}" })
        let seconds = try #require(Double(ts))
        #expect(abs(seconds - Gateway.timestamp()) < 60)
        #expect(ts.split(separator: ".").last.map { $0.count <= 6 } ?? true)
    }
}
