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

    @Test func waitingReportsAreBoundedAndDropsCounted() {
        let budget = HostEvents.ReportBudget()
        let report = AdvertisingReport(address: BluetoothAddress(rawValue: 1), addressType: 1, eventType: 0x10,
                                       rssi: -60, data: [])
        for _ in 0..<HostEvents.reportLimit { #expect(budget.admit(report)?.lostBefore == 0) }
        #expect(budget.admit(report) == nil)
        #expect(budget.admit(report) == nil)
        budget.taken()
        #expect(budget.admit(report)?.lostBefore == 2, "the two dropped travel with the next report let in")
        budget.taken()
        #expect(budget.admit(report)?.lostBefore == 0)
    }

    @Test func otherWaitingEventsAreBoundedToo() {
        // Past the limit the host stops loudly (UserlandHost), so nothing is dropped.
        let budget = HostEvents.ReportBudget()
        for _ in 0..<HostEvents.eventLimit { #expect(budget.admitEvent()) }
        #expect(!budget.admitEvent())
        budget.takenEvent()
        #expect(budget.admitEvent())
    }
}
