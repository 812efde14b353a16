import Testing
@testable import Attune
@testable import Transport

/// Scanning through CentralManager with reports captured from a real exchange.
@Suite("Scanning", .timeLimit(.minutes(10)))
struct ScanTests {
    /// The Bumble peer's advertisement and scan response, from a capture fixture.
    static func captured() throws -> (advertisement: Advertisement, scanResponse: Advertisement) {
        let ads = try AdvertisementTests.advertisements(in: "h4_rawcentral_external.btsnoop")
        return (ads[0], ads[1])
    }

    @Test func withoutDuplicatesEachDeviceOnceWithItsScanResponseMerged() async throws {
        let (ad, response) = try Self.captured()
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        var reports = try central.scan().makeAsyncIterator()
        radio.receive(ad)                // held for its scan response
        radio.receive(ad)                // a duplicate is dropped
        radio.receive(response)          // completes it: one discovery
        radio.receive(response)          // nothing new
        radio.receive(ad)
        var other = ad
        other.address = BluetoothAddress(rawValue: 0xC0FFEE)
        var otherResponse = response
        otherResponse.address = other.address
        radio.receive(otherResponse)     // a scan response alone waits for its advertisement
        radio.receive(other)
        let first = try #require(await reports.next())
        #expect(first.address == ad.address && first.scanResponseData != nil && first.isConnectable)
        #expect(first.localName == "BumbleLabPeer" && !first.isUpdate)
        let second = try #require(await reports.next())
        #expect(second.address == other.address && second.scanResponseData != nil && !second.isUpdate)
    }

    @Test func aChangedNameIsDeliveredAgainAsAnUpdate() async throws {
        let (ad, response) = try Self.captured()
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        var reports = try central.scan().makeAsyncIterator()
        radio.receive(ad)
        radio.receive(response)
        var renamed = ad
        renamed.localName = "Renamed"
        renamed.isLocalNameComplete = true
        radio.receive(renamed)
        let first = try #require(await reports.next())
        #expect(!first.isUpdate)
        let update = try #require(await reports.next())
        #expect(update.isUpdate && update.localName == "Renamed")
    }

    @Test func theMemoryRadioAnswersWithAScanResponse() async throws {
        let radio = MemoryRadio()
        // Flags and the service list take 7 of the advertisement's 31 bytes; the name's
        // 27 go to the scan response.
        let long = "Name in the scan response"
        try radio.startAdvertising(from: BluetoothAddress(rawValue: 0xC0_0000_0042),
                                   AdvertisingParameters(localName: long, serviceUUIDs: [BluetoothUUID(0x180D)])) { _ in }
        let central = CentralManager(transport: .memory(radio))
        var reports = try central.scan().makeAsyncIterator()
        let ad = try #require(await reports.next())
        #expect(ad.localName == long && ad.serviceUUIDs == [BluetoothUUID(0x180D)])
        #expect(ad.scanResponseData != nil)
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
        let (ad, response) = try Self.captured()
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        var battery = try central.scan(services: [BluetoothUUID(0x180F)]).makeAsyncIterator()
        var cycling = try central.scan(services: [BluetoothUUID(0x1816)]).makeAsyncIterator()
        // A cycling sensor that needs no scan response, heard after the peer and its
        // response: reports leave a scan in order, so the cycling scan's first being the
        // sensor proves the peer was filtered out of it.
        var sensor = ad
        sensor.address = BluetoothAddress(rawValue: 0xC0FFEE)
        sensor.localName = "Cadence"
        sensor.serviceUUIDs = [BluetoothUUID(0x1816)]
        sensor.incompleteServiceUUIDs = []
        sensor.isConnectable = false
        sensor.isScannable = false
        radio.receive(ad)
        radio.receive(response)
        radio.receive(sensor)
        #expect(try #require(await battery.next()).localName == "BumbleLabPeer")
        let firstCycling = try #require(await cycling.next())
        #expect(firstCycling.address == sensor.address && firstCycling.localName == "Cadence")
    }
}
