import HCI
import Testing
import Transport

/// The duplicate filter of a scan, on an injected clock: each device once with its scan
/// response merged in, news as updates, every report with duplicates, and a bounded table.
@Suite struct ScanTableTests {
    static let t0 = ContinuousClock.now

    /// ADV_IND (connectable, scannable) or SCAN_RSP from `address`, with `ad` structures.
    static func report(from address: UInt64 = 1, scanResponse: Bool = false, scannable: Bool = true,
                       rssi: Int = -60, _ ad: [UInt8]) -> Advertisement {
        Advertisement(address: BluetoothAddress(rawValue: address), addressType: .random, rssi: rssi,
                      data: AdvertisingData(decoding: ad[...]), isConnectable: !scanResponse, isScannable: scannable,
                      isScanResponse: scanResponse)
    }

    static let flags: [UInt8] = [0x02, 0x01, 0x06]
    static let heartRate: [UInt8] = [0x03, 0x03, 0x0D, 0x18]
    static func name(_ text: String) -> [UInt8] { [UInt8(text.utf8.count + 1), 0x09] + Array(text.utf8) }

    @Test func scanResponseIsMergedIntoOneDiscovery() {
        var table = ScanTable()
        #expect(table.receive(Self.report(Self.flags + Self.heartRate), at: Self.t0).isEmpty,
                "a scannable advertisement waits for its scan response")
        let out = table.receive(Self.report(scanResponse: true, Self.name("Sensor")), at: Self.t0 + .milliseconds(2))
        #expect(out.count == 1)
        let ad = out.first
        #expect(ad?.localName == "Sensor")
        #expect(ad?.serviceUUIDs == [BluetoothUUID(0x180D)])
        #expect(ad?.isConnectable == true, "connectability is the advertisement's")
        #expect(ad?.scanResponseData != nil)
        #expect(ad?.isUpdate == false)
        // The same advertisement and response again, any RSSI: nothing new.
        for step in 1...5 {
            let now = Self.t0 + .seconds(step)
            #expect(table.receive(Self.report(rssi: -60 - step, Self.flags + Self.heartRate), at: now).isEmpty)
            #expect(table.receive(Self.report(scanResponse: true, Self.name("Sensor")), at: now).isEmpty)
        }
        #expect(table.expire(at: Self.t0 + .seconds(60)).isEmpty)
    }

    @Test func changedNameOrDataIsAnUpdate() {
        var table = ScanTable()
        _ = table.receive(Self.report(Self.flags), at: Self.t0)
        #expect(table.receive(Self.report(scanResponse: true, Self.name("Old")), at: Self.t0).count == 1)
        let renamed = table.receive(Self.report(scanResponse: true, Self.name("New")), at: Self.t0 + .seconds(1))
        #expect(renamed.map(\.localName) == ["New"])
        #expect(renamed.first?.isUpdate == true)
        let more = table.receive(Self.report(Self.flags + Self.heartRate), at: Self.t0 + .seconds(2))
        #expect(more.first?.isUpdate == true)
        #expect(more.first?.serviceUUIDs == [BluetoothUUID(0x180D)])
        #expect(more.first?.localName == "New", "the merged scan response stays")
    }

    @Test func aMissingScanResponseDeliversAfterTheWait() {
        var table = ScanTable(scanResponseWait: .milliseconds(500))
        #expect(table.receive(Self.report(Self.flags), at: Self.t0).isEmpty)
        #expect(table.nextDeadline == Self.t0 + .milliseconds(500))
        #expect(table.expire(at: Self.t0 + .milliseconds(499)).isEmpty)
        let out = table.expire(at: Self.t0 + .milliseconds(500))
        #expect(out.count == 1)
        #expect(out.first?.isUpdate == false)
        #expect(table.nextDeadline == nil)
        // The late scan response adds a name: an update.
        let late = table.receive(Self.report(scanResponse: true, Self.name("Late")), at: Self.t0 + .seconds(1))
        #expect(late.first?.isUpdate == true)
        #expect(late.first?.localName == "Late")
    }

    @Test func nonScannableAndPassiveScansDeliverAtOnce() {
        var table = ScanTable()
        var beacon = Self.report(scannable: false, Self.flags)
        beacon.isConnectable = false
        #expect(table.receive(beacon, at: Self.t0).count == 1, "nothing can follow a non-connectable, non-scannable one")
        var passive = ScanTable(expectsScanResponses: false)
        #expect(passive.receive(Self.report(Self.flags), at: Self.t0).count == 1)
    }

    @Test func aScanResponseAloneWaitsForItsAdvertisement() {
        var table = ScanTable()
        #expect(table.receive(Self.report(scanResponse: true, Self.name("First")), at: Self.t0).isEmpty)
        #expect(table.expire(at: Self.t0 + .seconds(10)).isEmpty)
        let out = table.receive(Self.report(Self.flags), at: Self.t0 + .seconds(10))
        #expect(out.count == 1, "the response came already: nothing to wait for")
        #expect(out.first?.localName == "First")
        #expect(out.first?.isConnectable == true)
    }

    @Test func duplicatesDeliverEveryReportMerged() {
        var table = ScanTable(allowDuplicates: true)
        var delivered: [Advertisement] = []
        for step in 0..<3 {
            let now = Self.t0 + .seconds(step)
            delivered += table.receive(Self.report(Self.flags), at: now)
            delivered += table.receive(Self.report(scanResponse: true, Self.name("Dup")), at: now)
        }
        #expect(delivered.count == 6)
        #expect(delivered.dropFirst().allSatisfy { $0.localName == "Dup" })
        #expect(table.nextDeadline == nil, "nothing is held with duplicates")
    }

    @Test func theTableForgetsTheLeastRecentlySeen() {
        var table = ScanTable(limit: 3, expectsScanResponses: false)
        for address in 1...3 { _ = table.receive(Self.report(from: UInt64(address), Self.flags), at: Self.t0) }
        // Address 1 seen again: 2 is now the least recently seen.
        #expect(table.receive(Self.report(from: 1, Self.flags), at: Self.t0).isEmpty)
        #expect(table.receive(Self.report(from: 4, Self.flags), at: Self.t0).count == 1)
        #expect(table.count == 3)
        #expect(table.receive(Self.report(from: 1, Self.flags), at: Self.t0).isEmpty, "1 is remembered")
        #expect(table.receive(Self.report(from: 2, Self.flags), at: Self.t0).count == 1, "2 was forgotten: new again")
        for address in 5...10_000 { _ = table.receive(Self.report(from: UInt64(address), Self.flags), at: Self.t0) }
        #expect(table.count == 3)
    }

    @Test func heldDevicesAreBoundedToo() {
        var table = ScanTable(limit: 100)
        var delivered = 0
        for address in 1...10_000 {
            delivered += table.receive(Self.report(from: UInt64(address), Self.flags), at: Self.t0).count
        }
        #expect(table.count == 100)
        #expect(delivered == 10_000 - 100, "a held device forgotten for room goes out first, not lost")
        #expect(table.expire(at: Self.t0 + .seconds(1)).count == 100)
        #expect(table.nextDeadline == nil)
    }
}
