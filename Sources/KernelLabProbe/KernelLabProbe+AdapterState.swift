import Attune
import EventLoop
import Glibc
import Synchronization
import Transport

extension KernelLabProbe {
    /// The kernel transport's manager state follows the adapter: `hciconfig hci0 down`
    /// (the HCIDEVDOWN ioctl, as rfkill and power-off do) must reach `stateUpdates` as
    /// powered off, and `up` as powered on again, from the kernel's own Device events.
    static func adapterStateScenario(log: ProbeLog) async {
        let central = CentralManager(transport: .kernel("hci0"))
        final class Seen: Sendable { let states = Mutex<[ManagerState]>([]) }
        let seen = Seen()
        let listener = Task {
            for await state in central.stateUpdates { seen.states.withLock { $0.append(state) } }
        }
        defer { listener.cancel() }
        /// Waits up to 10 s for the update after the first `count` ones.
        func update(after count: Int) async -> ManagerState? {
            for _ in 0..<1000 {
                if let state = seen.states.withLock({ $0.count > count ? $0[count] : nil }) { return state }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }
        let initial = await update(after: 0)
        initial == .poweredOn ? log.pass("adapter state: initial", "poweredOn")
            : log.fail("adapter state: initial", "\(initial.map { "\($0)" } ?? "nothing")")
        var count = 1
        for (command, expected) in [("down", ManagerState.poweredOff), ("up", ManagerState.poweredOn)] {
            let start = KernelEventLoop.now()
            let status = system("hciconfig hci0 \(command)")
            guard status == 0 else {
                log.fail("adapter state: hciconfig hci0 \(command)", "exit status \(status)")
                return
            }
            let next = await update(after: count)
            count += 1
            next == expected
                ? log.pass("adapter state: \(command)", "\(expected) after \(ms(elapsed(since: start))) ms")
                : log.fail("adapter state: \(command)", "expected \(expected), got \(next.map { "\($0)" } ?? "nothing in 10 s")")
        }
    }
}
