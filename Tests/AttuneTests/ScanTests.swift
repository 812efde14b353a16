import Testing
@testable import Attune
@testable import Transport

/// Scanning through CentralManager with reports captured from a real exchange.
@Suite("Scanning", .timeLimit(.minutes(1)))
struct ScanTests {
    /// The Bumble peer's advertisement and scan response, from a capture fixture.
    static func captured() throws -> (advertisement: Advertisement, scanResponse: Advertisement) {
        let ads = try AdvertisementTests.advertisements(in: "h4_rawcentral_external.btsnoop")
        return (ads[0], ads[1])
    }

    @Test func withoutDuplicatesEachDeviceOnceThenCompletedByItsScanResponse() async throws {
        let (ad, response) = try Self.captured()
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        var reports = try central.scan().makeAsyncIterator()
        radio.receive(response)          // a scan response alone is held back
        radio.receive(ad)
        radio.receive(ad)                // a duplicate is dropped
        radio.receive(response)          // completes the first sighting
        radio.receive(response)          // nothing new
        var other = ad
        other.address = BluetoothAddress(rawValue: 0xC0FFEE)
        radio.receive(other)
        let first = try #require(await reports.next())
        #expect(first.address == ad.address && first.scanResponseData == nil)
        let second = try #require(await reports.next())
        #expect(second.address == ad.address && second.scanResponseData != nil && second.isConnectable)
        let third = try #require(await reports.next())
        #expect(third.address == other.address)
    }

    @Test func allowDuplicatesDeliversEveryReportMerged() async throws {
        let (ad, response) = try Self.captured()
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        var reports = try central.scan(allowDuplicates: true).makeAsyncIterator()
        for report in [ad, response, ad] { radio.receive(report) }
        var got: [Advertisement] = []
        for _ in 0..<3 { got.append(try #require(await reports.next())) }
        #expect(got.map(\.address) == [ad.address, ad.address, ad.address])
        #expect(got[2].scanResponseData != nil, "later reports keep what the scan response added")
    }

    @Test func serviceFilterMatchesIncompleteListsToo() async throws {
        let (ad, _) = try Self.captured()
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        var battery = try central.scan(services: [BluetoothUUID(0x180F)]).makeAsyncIterator()
        let cycling = try central.scan(services: [BluetoothUUID(0x1816)])
        radio.receive(ad)
        #expect(try #require(await battery.next()).localName == "BumbleLabPeer")
        let none = Task { var it = cycling.makeAsyncIterator(); return await it.next() }
        try await Task.sleep(for: .milliseconds(50))
        none.cancel()
        #expect(await none.value == nil)
    }
}
