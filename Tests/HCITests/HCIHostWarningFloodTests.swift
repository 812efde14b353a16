import Testing
@testable import HCI

/// A controller flooding bad input must cost the host counters, not memory: warnings
/// are counted one by one but delivered at a bounded rate (HostWarningLimiter).
@Suite("HCI host: warning floods")
struct HCIHostWarningFloodTests {
    static func warnings(_ output: HostOutput) -> [HostWarning] {
        output.events.compactMap { if case .warning(let w) = $0 { w } else { nil } }
    }

    @Test("250,000 Number Of Completed Packets for an unknown handle: few warnings, all counted, host still works")
    func completedPacketsFlood() {
        var controller = FakeController(aclPackets: 1)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        let bogus = FakeController.numberOfCompletedPackets([(0x0777, 1)])
        var host = controller.host
        var now = controller.now
        let start = now
        var delivered: [HostWarning] = []
        // Sized to stay quick in a parallel debug run; the bound does not depend on it.
        for _ in 0..<250_000 {
            now = now + .microseconds(40)   // ten seconds of flood in all
            delivered += Self.warnings(host.receiving(bogus, at: now))
        }
        now = now + HostWarningLimiter.window
        delivered += Self.warnings(host.ticking(at: now))
        let windows = Int(now.duration(since: start) / HostWarningLimiter.window) + 1
        // One kind of warning: its burst and one summary per window.
        #expect(delivered.count <= windows * (HostWarningLimiter.burst + 1), "\(delivered.count) warnings in \(windows) windows")
        #expect(host.warningCounts[.completedPacketsMismatch] == 250_000)
        #expect(host.warningCounts.total == 250_000)
        let summarised = delivered.reduce(0) { sum, w in
            if case .suppressed(.completedPacketsMismatch, let n) = w { return sum + n }
            return sum + (w.kind == .completedPacketsMismatch ? 1 : 0)
        }
        #expect(summarised == 250_000, "every warning is delivered or summarised")

        controller.host = host
        controller.now = now
        controller.sent = []
        controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: [0x02, 0x17, 0x00]), id: 1)
        #expect(controller.sent.filter { $0.first == 0x02 }.count == 1)
        #expect(controller.closed == nil)
    }

    @Test("stray Command Completes during initialisation: bounded warnings, then initialisation finishes")
    func strayCompletionsDuringInit() {
        var controller = FakeController()
        let start = controller.host.starting(at: controller.now)
        controller.take(start)
        var delivered = 0
        let stray = FakeController.commandComplete(0x2005, [0])
        for _ in 0..<200_000 {
            delivered += Self.warnings(controller.host.receiving(stray, at: controller.now)).count
        }
        // All at one instant: one window's burst, nothing more until it ends.
        #expect(delivered == HostWarningLimiter.burst)
        #expect(controller.host.warningCounts[.unexpectedCommandCompletion] == 200_000)
        controller.initialize()
        #expect(controller.host.isReady)
        controller.advance(HostWarningLimiter.window)
        #expect(controller.warnings.contains(.suppressed(.unexpectedCommandCompletion, count: 200_000 - HostWarningLimiter.burst)))
    }

    @Test("pending summaries are scheduled, so they come out after the flood stops")
    func summaryIsScheduled() {
        var controller = FakeController()
        controller.initialize()
        var host = controller.host
        var scheduled: MonotonicTime?
        for _ in 0...HostWarningLimiter.burst {
            scheduled = host.receiving([0x03, 0x01, 0x00, 0x00], at: controller.now).deadline
        }
        #expect(scheduled == controller.now + HostWarningLimiter.window)
        let summaries = Self.warnings(host.ticking(at: controller.now + HostWarningLimiter.window))
        #expect(summaries == [.suppressed(.unexpectedPacketType, count: 1)])
    }

    @Test("a mix of kinds in one window never exceeds every kind's burst plus its summary")
    func everyKindBounded() {
        var controller = FakeController()
        controller.initialize()
        var host = controller.host
        var delivered = 0
        let floods: [[UInt8]] = [
            [0x03, 0x01, 0x00, 0x00],                                       // unexpected packet type
            FakeController.commandComplete(0x2005, [0]),                    // stray completion
            [0x04, 0x0E, 0x09, 0x01],                                       // malformed event
            FakeController.acl(handle: 0x0E, channel: 4, payload: [0x0A]), // unknown handle
            FakeController.disconnectionComplete(handle: 0x0E, reason: 0x13),
        ]
        for _ in 0..<10_000 { for packet in floods { delivered += Self.warnings(host.receiving(packet, at: controller.now)).count } }
        delivered += Self.warnings(host.ticking(at: controller.now + HostWarningLimiter.window)).count
        #expect(delivered == floods.count * (HostWarningLimiter.burst + 1))
        #expect(delivered <= HostWarningLimiter.maximumPerWindow)
        #expect(host.warningCounts.total == 50_000)
    }
}
