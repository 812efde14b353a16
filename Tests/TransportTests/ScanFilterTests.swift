import HCI
import Synchronization
import Testing
@testable import Transport

/// The live side of scan filtering: the filter's timer delivers a device whose scan
/// response never came, and the userland host's event stream bounds waiting reports.
@Suite struct ScanFilterTests {
    @Test(.timeLimit(.minutes(10)))
    func aHeldDeviceIsDeliveredWhenItsWaitEnds() async throws {
        let (delivered, sink) = AsyncStream.makeStream(of: Advertisement.self)
        let filter = ScanFilter(ScanTable(scanResponseWait: .milliseconds(20))) { sink.yield($0) }
        defer { filter.close() }
        filter.receive(ScanTableTests.report(ScanTableTests.flags))
        // No scan response and no further report: only the timer can deliver it.
        var iterator = delivered.makeAsyncIterator()
        let ad = try #require(await iterator.next())
        #expect(ad.address == BluetoothAddress(rawValue: 1) && !ad.isUpdate && ad.scanResponseData == nil)
        #expect(filter.count == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func waitingReportsAreBoundedAndDropsCounted() async {
        let events = HostEvents.Buffer()
        let report = AdvertisingReport(address: BluetoothAddress(rawValue: 1), addressType: 1, eventType: 0x10,
                                       rssi: -60, data: [])
        for _ in 0..<HostEvents.reportLimit { events.offerReport(report) }
        events.offerReport(report)
        events.offerReport(report)
        #expect(events.events.count == HostEvents.reportLimit, "the two past the limit were dropped")
        var iterator = HostEvents(buffer: events).makeAsyncIterator()
        guard case .advertisingReport(let first) = await iterator.next() else { Issue.record("no report"); return }
        #expect(first.lostBefore == 0)
        events.offerReport(report)
        for _ in 0..<(HostEvents.reportLimit - 1) { _ = await iterator.next() }
        guard case .advertisingReport(let next) = await iterator.next() else { Issue.record("no report"); return }
        #expect(next.lostBefore == 2, "the two dropped travel with the next report let in")
        events.offerReport(report)
        guard case .advertisingReport(let after) = await iterator.next() else { Issue.record("no report"); return }
        #expect(after.lostBefore == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func otherWaitingEventsAreBoundedToo() async {
        // Past the limit the host stops loudly (UserlandHost), so nothing is dropped.
        let events = HostEvents.Buffer()
        for _ in 0..<HostEvents.eventLimit { #expect(events.offer(.pairingRefused(handle: 1))) }
        #expect(!events.offer(.pairingRefused(handle: 1)))
        var iterator = HostEvents(buffer: events).makeAsyncIterator()
        _ = await iterator.next()
        #expect(events.offer(.pairingRefused(handle: 1)))
    }
}
