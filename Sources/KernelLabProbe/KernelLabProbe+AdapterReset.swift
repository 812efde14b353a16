import Attune
import Synchronization
import class EventLoop.KernelEventLoop

extension KernelLabProbe {
    /// `CentralManager.resetAdapter()` on the kernel transport: connected over hci0 to
    /// our server on hci1, the reset (mgmt Set Powered off, then on) ends the link with
    /// the reason the kernel reports, the state goes through poweredOff back to
    /// poweredOn, and the central connects again.
    static func adapterResetScenario(log: ProbeLog) async {
        guard let lab = await LabPeripheral.start(log: log, scenario: "adapter reset") else { return }
        let serving = Task {
            while let socket = try? await lab.listener.accept() { Task { await KernelGATTServer.serve(socket) } }
        }
        defer {
            serving.cancel()
            lab.close()
        }
        let central = CentralManager(transport: .kernel("hci0"))
        let remote = central.peripheral(address: lab.peripheral.address, type: .public)
        do {
            try await central.connect(remote, timeout: .seconds(15), discoverDatabase: false)
            log.pass("adapter reset: connect")
        } catch {
            log.fail("adapter reset: connect", "\(error)")
            return
        }
        final class Seen: Sendable {
            let states = Mutex<[ManagerState]>([])
            let ended = Mutex<LifecycleEvent?>(nil)
        }
        let seen = Seen()
        let events = remote.lifecycleEvents
        let watchers = [
            Task { for await state in central.stateUpdates { seen.states.withLock { $0.append(state) } } },
            Task {
                for await event in events {
                    if case .disconnected = event {
                        seen.ended.withLock { $0 = event }
                        break
                    }
                }
            },
        ]
        defer { for watcher in watchers { watcher.cancel() } }
        /// Waits up to 10 s for `condition`.
        func within10s(_ condition: () -> Bool) async -> Bool {
            for _ in 0..<1000 {
                if condition() { return true }
                try? await KernelEventLoop.shared().sleep(for: .milliseconds(10))
            }
            return condition()
        }

        let start = KernelEventLoop.now()
        do {
            try await central.resetAdapter()
            central.state == .poweredOn
                ? log.pass("adapter reset: reset", "poweredOn again after \(ms(elapsed(since: start))) ms")
                : log.fail("adapter reset: reset", "returned with the state \(central.status)")
        } catch {
            log.fail("adapter reset: reset", "\(error)")
            return
        }
        if await within10s({ seen.ended.withLock { $0 } != nil }), let ended = seen.ended.withLock({ $0 }) {
            log.pass("adapter reset: link ended", "\(ended)")
        } else {
            log.fail("adapter reset: link ended", "no disconnected event in 10 s")
        }
        let states = seen.states.withLock { $0 }
        await within10s({ seen.states.withLock { $0.last } == .poweredOn && seen.states.withLock { $0 }.contains(.poweredOff) })
            ? log.pass("adapter reset: states", "\(seen.states.withLock { $0 })")
            : log.fail("adapter reset: states", "expected poweredOff then poweredOn, saw \(states)")
        // hci1's legacy advertising stopped with the connection; the link is gone now.
        try? await lab.advertiser.setEnabled(true)
        do {
            try await central.connect(remote, timeout: .seconds(15), discoverDatabase: false)
            log.pass("adapter reset: reconnect")
        } catch {
            log.fail("adapter reset: reconnect", "\(error)")
        }
        await central.cancelAllConnections()
    }
}
