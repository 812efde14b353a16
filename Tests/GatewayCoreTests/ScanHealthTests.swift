import Testing
import BluetoothCore
@testable import GatewayCore

@Suite("Scan health")
struct ScanHealthTests {
    @Test func silenceRestartsTheScanThenResetsTheAdapter() {
        var h = ScanHealth(adapter: "hci0")
        _ = h.scanning(true, at: t(0))
        for i in 0..<10 { _ = h.advertisements(5, at: t(Double(i))) }
        #expect(h.advertisementsPerSecond(at: t(9.5)) == 5)
        #expect(h.tick(at: t(98.9)).a == [])
        let restart = h.tick(at: t(99))
        #expect(restart.a == [.restartScan, .report(ScanHealthEvent(adapter: "hci0", step: .restartedScan, silentFor: .seconds(90)))])
        #expect(restart.nextDeadline == t(189))
        #expect(h.advertisementsPerSecond(at: t(99)) == 0)
        _ = h.scanning(false, at: t(100))
        _ = h.scanning(true, at: t(101))
        #expect(h.tick(at: t(190)).a == [], "the silence after the restart counts from the scan's new start")
        #expect(h.tick(at: t(191)).a == [.resetAdapter, .report(ScanHealthEvent(adapter: "hci0", step: .resetAdapter, silentFor: .seconds(182)))])
        #expect(h.tick(at: t(281)).a == [.report(ScanHealthEvent(adapter: "hci0", step: .unrecovered, silentFor: .seconds(272)))])
        #expect(h.tick(at: t(5000)).a == [], "nothing more until an advertisement")
        #expect(h.advertisements(at: t(5001)).a == [.report(ScanHealthEvent(adapter: "hci0", step: .recovered, silentFor: .seconds(4992)))])
        #expect(h.tick(at: t(5090)).a == [])
        #expect(h.tick(at: t(5091)).a.first == .restartScan, "a new silence starts over")
    }

    @Test func advertisementsAfterARestartEndTheSilence() {
        var h = ScanHealth(adapter: "hci0")
        _ = h.scanning(true, at: t(0))
        _ = h.advertisements(at: t(0))
        #expect(h.tick(at: t(90)).a.first == .restartScan)
        #expect(h.advertisements(at: t(91)).a.count == 1)
        #expect(h.tick(at: t(180)).a == [], "the reset is not due: the scan recovered")
    }

    @Test func aQuietRoomAndAStoppedScanAreNotFaults() {
        var h = ScanHealth(adapter: "hci0")
        _ = h.scanning(true, at: t(0))
        #expect(h.tick(at: t(1000)).a == [], "never heard anything since it started")
        _ = h.advertisements(at: t(1000))
        _ = h.scanning(false, at: t(1001))
        #expect(h.tick(at: t(5000)).a == [], "not scanning")
        _ = h.scanning(true, at: t(5000))
        #expect(h.tick(at: t(5089)).a == [])
        #expect(h.tick(at: t(5090)).a.first == .restartScan, "silence counts from the resumed scan")
    }

    @Test func theRateWindowForgetsOldSeconds() {
        var w = RateWindow(seconds: 10)
        for i in 0..<100 { w.add(at: t(Double(i) / 10)) }
        #expect(w.perSecond(at: t(9.9)) == 10)
        #expect(w.perSecond(at: t(15)) == 4, "seconds 6...9 are still in the window ending at 15")
        #expect(w.perSecond(at: t(30)) == 0)
        w.add(Int.max, at: t(31))
        w.add(Int.max, at: t(31))
        #expect(w.perSecond(at: t(31)) > 0, "saturates, does not trap")
    }
}
