import SensorDecoding
import Testing
@testable import GatewayConfig

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("10s", .seconds(10)), ("10m", .seconds(600)), ("1h", .seconds(3600)),
        ("30", .seconds(30)), ("1.5s", .milliseconds(1500)), ("0.5", .milliseconds(500)), ("2.5ms", .microseconds(2500)),
        ("168h", .seconds(604_800)), ("0.000000001s", .nanoseconds(1)),
    ])
    func parses(_ text: String, _ expected: Duration) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test(arguments: ["", "0", "0s", "-1s", "169h", "604801", "10 s", "10x", "1e3", ".5s", "5.s", "1.0000000001s", "ms",
                      "99999999999999999999h", "inf", "nan", "1d", "0x10"])
    func refuses(_ text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func formats() {
        #expect(DurationText.format(.seconds(3600)) == "1 h")
        #expect(DurationText.format(.seconds(600)) == "10 min")
        #expect(DurationText.format(.seconds(90)) == "90 s")
        #expect(DurationText.format(.milliseconds(1500)) == "1500 ms")
        #expect(DurationText.format(.microseconds(2500)) == "2500 us")
    }

    /// In the config a duration may be a plain number (seconds), quoted text or text with a unit.
    @Test func durationsInTheConfig() throws {
        let c = try load(minimalHead + """
        devices:
          - {name: a, address: "00:00:00:00:00:01", connect: poll, every: 90, gatt: [{characteristic: "2a19", read: "1.5"}]}
          - {name: b, address: "00:00:00:00:00:02", connect: poll, every: 0.25, gatt: [{characteristic: "2a19", read: 1h}]}
        """)
        #expect(c.devices[0].pollInterval == .seconds(90))
        #expect(c.devices[0].gatt[0].read == .every(.milliseconds(1500)))
        #expect(c.devices[1].every == .milliseconds(250))
        #expect(c.devices[1].gatt[0].read == .every(.seconds(3600)))
        #expect(loadError(minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", every: true}]\n")?.description
            == "devices[0].every: not a duration (like 250ms, 10s, 10m, 1h, or a number of seconds) greater than 0 and at most 7 days")
    }
}
