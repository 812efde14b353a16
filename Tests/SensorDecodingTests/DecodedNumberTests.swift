import Testing
import SensorDecoding

/// Numbers print as JSON without binary noise, and values render as JSON objects.
@Suite struct DecodedNumberTests {
    @Test func decimalsPrintAsWritten() {
        #expect(DecodedNumber(72).description == "72")
        #expect(DecodedNumber(significand: 7200, exponent: -2).description == "72")
        #expect(DecodedNumber(significand: 2150, exponent: -2).description == "21.5")
        #expect(DecodedNumber(significand: -625, exponent: -4).description == "-0.0625")
        #expect(DecodedNumber(significand: 0, exponent: -5).description == "0")
        #expect(DecodedNumber(significand: 15, exponent: -13).description == "1.5e-12")
        #expect(DecodedNumber(significand: 1, exponent: 25).description == "1e25")
        #expect(DecodedNumber(significand: 12, exponent: 3).description == "12000")
    }

    @Test func productsStayExact() {
        // In binary, 3 × 0.1 is 0.30000000000000004 and 2150 × 0.01 is 21.500000000000004.
        let tenth = DecodedNumber(significand: 1, exponent: -1)
        #expect(DecodedNumber(3).multiplied(by: tenth).description == "0.3")
        #expect(DecodedNumber(2150).multiplied(by: DecodedNumber(double: 0.01) ?? tenth).description == "21.5")
        #expect(DecodedNumber(-22).multiplied(by: DecodedNumber(significand: 35, exponent: -2)).description == "-7.7")
        // Overflowing significands fall back to the nearest double.
        let big = DecodedNumber(Int64.max).multiplied(by: DecodedNumber(significand: 3, exponent: -1))
        #expect(abs(big.doubleValue - Double(Int64.max) * 0.3) < 1e4)
    }

    @Test func doublesAndFloatsTakeTheirShortestDecimal() {
        #expect(DecodedNumber(double: 1796042144.06)?.description == "1796042144.06")
        #expect(DecodedNumber(double: 1e-7)?.description == "0.0000001")
        #expect(DecodedNumber(double: 1e-8)?.description == "1e-8")
        #expect(DecodedNumber(double: -3.0)?.description == "-3")
        #expect(DecodedNumber(float: 0.1)?.description == "0.1")
        #expect(DecodedNumber(double: Double.nan) == nil)
        #expect(DecodedNumber(float: .infinity) == nil)
        #expect(DecodedNumber(double: 0.25)?.doubleValue == 0.25)
    }

    @Test func extremeExponentsNeverTrap() {
        let tiny = DecodedNumber(significand: 1, exponent: Int.min)
        let huge = DecodedNumber(significand: -1, exponent: Int.max)
        #expect(tiny.description == "1e-9999")
        #expect(huge.description == "-1e9999")
        #expect(tiny.multiplied(by: tiny).doubleValue == 0)
        #expect(huge.multiplied(by: huge).doubleValue.isInfinite)
        #expect(huge.exactInteger == nil)
        #expect(DecodedNumber(significand: 25, exponent: 2).exactInteger == 2500)
        #expect(DecodedNumber(significand: 25, exponent: -1).exactInteger == nil)
    }

    @Test func jsonObjectsWithFieldsAndExtras() {
        let value = DecodedValue(value: .number(DecodedNumber(significand: 215, exponent: -1)), unit: "°C",
                                 fields: [.init("quote\"d", .list([.bool(false), .null, .string("x")]))])
        #expect(value.json(appending: [.init("via", .string("gw"))])
                == "{\"value\": 21.5, \"unit\": \"°C\", \"quote\\\"d\": [false, null, \"x\"], \"via\": \"gw\"}")
        #expect(value.json(rssi: -70) == "{\"value\": 21.5, \"unit\": \"°C\", \"quote\\\"d\": [false, null, \"x\"], \"rssi\": -70}")
    }
}
