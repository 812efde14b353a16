import Testing
@testable import GatewayConfig

/// A device's `adapters:` list: the adapters that may serve it, best first.
@Suite struct AffinityTests {
    static let head = """
    mqtt: {url: "mqtt://broker", client_id: gw}
    adapters: [{transport: hci0}, {transport: hci1}, {transport: "tcp:127.0.0.1:9000"}]

    """

    @Test func listedAdaptersAreKeptInOrder() throws {
        let c = try load(Self.head + "devices:\n  - {name: a, address: \"00:00:00:00:00:01\", adapters: [hci1, hci0]}\n"
            + "  - {name: b, address: \"00:00:00:00:00:02\"}\n")
        #expect(c.devices[0].adapters == ["hci1", "hci0"])
        #expect(c.devices[1].adapters == [], "none given: any adapter, in config order")
        #expect(c.plan.contains("a: 00:00:00:00:00:01 public; advertisements only; adapters hci1, hci0"), "\(c.plan)")
    }

    @Test(arguments: [
        ("adapters: [hci2]", "devices[0].adapters[0]: \"hci2\" is not the transport of an entry of adapters"),
        ("adapters: [hci0, hci0]", "devices[0].adapters[1]: \"hci0\" is listed by devices[0].adapters[0] too"),
        ("adapters: hci0", "devices[0].adapters: expected a sequence, got a string"),
        ("adapters: [[hci0]]", "devices[0].adapters[0]: expected a string, got a sequence"),
        ("adaptors: [hci0]", "devices[0].adaptors: unknown key; did you mean adapters?"),
    ])
    func mistakesNameTheirPath(_ key: String, _ expected: String) {
        let yaml = Self.head + "devices:\n  - {name: a, address: \"00:00:00:00:00:01\", \(key)}\n"
        #expect(loadError(yaml)?.description == expected)
    }

    @Test func tooManyEntriesAreRefusedBeforeReading() {
        let list = (0..<17).map { _ in "hci0" }.joined(separator: ", ")
        let yaml = Self.head + "devices:\n  - {name: a, address: \"00:00:00:00:00:01\", adapters: [\(list)]}\n"
        #expect(loadError(yaml)?.description == "devices[0].adapters: 17 entries; at most 16")
    }
}
