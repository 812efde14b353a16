import SensorDecoding
import Testing
@testable import GatewayConfig

/// Hostile sizes: too many devices fails with a count, at once; the largest allowed loads.
@Suite struct ScaleTests {
    static func devices(_ count: Int) -> String {
        var text = minimalHead + "devices:\n"
        text.reserveCapacity(count * 60)
        for i in 0..<count {
            let a = String(i, radix: 16)
            let hex = String(repeating: "0", count: 4 - a.count) + a
            text += "  - {name: d\(i), address: \"00:00:00:00:\(hex.prefix(2)):\(hex.suffix(2))\"}\n"
        }
        return text
    }

    @Test func tenThousandDevicesIsAnError() {
        let yaml = Self.devices(10_000)
        let clock = ContinuousClock()
        var error: GatewayConfigError?
        let elapsed = clock.measure { error = loadError(yaml) }
        #expect(error?.description == "devices: 10000 entries; at most 4096")
        #expect(error?.line == 4)
        // Generous for a loaded 2-core machine running a debug build; it takes about 0.1 s.
        #expect(elapsed < .seconds(5))
    }

    @Test func fourThousandNinetySixDevicesLoad() throws {
        let c = try load(Self.devices(4096))
        #expect(c.devices.count == 4096)
        #expect(c.devices.last?.identity == .address(.init(0, 0, 0, 0, 0x0F, 0xFF), .public))
    }
}
