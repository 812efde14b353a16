import Testing
@testable import Attune
@testable import Transport

/// The memory radio's advertising events: a report a scanner missed is heard again, as
/// from real legacy advertising, and paused advertising (a full peripheral's) is not.
@Suite("Memory radio advertising events", .timeLimit(.minutes(10)))
struct MemoryAdvertisingEventTests {
    static let service = BluetoothUUID(0x180D)

    /// The next advertisement, past scan responses (every report comes with duplicates on).
    static func nextAdvertisement(_ reports: inout AsyncStream<Advertisement>.Iterator) async -> Advertisement? {
        while let report = await reports.next() {
            if !report.isScanResponse { return report }
        }
        return nil
    }

    @Test func eachEventReachesEveryScannerAgain() async throws {
        let radio = MemoryRadio()
        let peripheral = try PeripheralManager(transport: .memory(radio), name: "p")
        try await peripheral.startAdvertising(localName: "p", serviceUUIDs: [Self.service])
        let central = CentralManager(transport: .memory(radio))
        var reports = try central.scan(allowDuplicates: true).makeAsyncIterator()
        let first = try #require(await Self.nextAdvertisement(&reports), "heard when the scan starts")
        radio.advertiseAgain()
        let again = try #require(await Self.nextAdvertisement(&reports), "heard again at the next event")
        #expect(again.address == first.address && again.localName == "p")
    }

    @Test func aFullPeripheralIsNotRepeated() async throws {
        let radio = MemoryRadio()
        let peripheral = try PeripheralManager(transport: .memory(radio), name: "p")
        await peripheral.setMaximumCentrals(1)
        try await peripheral.startAdvertising(localName: "p", serviceUUIDs: [Self.service])
        let central = CentralManager(transport: .memory(radio))
        var first = try central.scan().makeAsyncIterator()
        let heard = try #require(await Self.nextAdvertisement(&first))
        try await central.connect(central.peripheral(for: heard))
        #expect(radio.currentAdvertisements.isEmpty, "its one connection paused its advertising")
        // A scan from now on: the event brings nothing; the report after it is the next one heard.
        let listener = CentralManager(transport: .memory(radio))
        var reports = try listener.scan(allowDuplicates: true).makeAsyncIterator()
        radio.advertiseAgain()
        var other = heard
        other.address = BluetoothAddress(rawValue: 0xC0FFEE)
        radio.receive(other)
        let next = try #require(await Self.nextAdvertisement(&reports))
        #expect(next.address == other.address)
    }

    @Test func theIntervalRepeatsWithoutBeingAsked() async throws {
        let radio = MemoryRadio(advertisingInterval: .milliseconds(50))
        let central = CentralManager(transport: .memory(radio))
        var reports = try central.scan(allowDuplicates: true).makeAsyncIterator()
        // Advertising that starts after the scan is heard when it starts, then at each event.
        let peripheral = try PeripheralManager(transport: .memory(radio), name: "p")
        try await peripheral.startAdvertising(localName: "p", serviceUUIDs: [Self.service])
        for _ in 0..<3 {
            let report = try #require(await Self.nextAdvertisement(&reports))
            #expect(report.localName == "p")
        }
    }
}
