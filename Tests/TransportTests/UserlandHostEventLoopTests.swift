import ControllerTestSupport
import EventLoop
import Foundation
import HCI
import Synchronization
import Testing
import Transport

extension Floods {
    /// The userland host on the shared event loop: no threads of its own, bounded turns so
    /// one flooded host cannot starve another, and deadlines that are timers, not polls.
    /// Among the floods, so the fairness bound is not measured beside another flood.
    @Suite("Userland host on the event loop", .serialized)
    struct UserlandHostEventLoopTests {
        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        /// Starts a host on `endpoint` and keeps its events drained in the background.
        static func startedHost(_ endpoint: H4Endpoint, loop: KernelEventLoop, commandTimeout: Duration = .seconds(5),
                                events: EventRecord<HostEvent>? = nil) async throws -> (UserlandHost, Task<Void, Never>) {
            let host = try UserlandHost(endpoint: endpoint, configuration: HostConfiguration(
                randomAddress: BluetoothAddress(0xC0, 0, 0, 0, 0, 1), commandTimeout: commandTimeout), loop: loop)
            let stream = host.events
            let drain = Task {
                for await event in stream {
                    if case .warning = event { continue }
                    events?.append(event)
                }
                events?.finish()
            }
            _ = try await host.start()
            return (host, drain)
        }

        /// Set in the child process that runs a check of the whole process's threads
        /// (``tenHostsNoThreads()``, ``idleDeadlineWithoutPolling()``): in the suite's own
        /// process, other suites start threads and wake them meanwhile (42 new threads
        /// were counted once on a loaded machine), so the count would not be the hosts'.
        static let threadCountChild = "ATTUNE_USERLAND_THREAD_COUNT_CHILD"

        /// Runs the test `filter` names in a child process of this binary, where nothing
        /// else runs, and checks it passed there.
        static func passesInChild(_ filter: String) async throws {
            let child = try await ChildTestRun.run(filter: filter, marker: threadCountChild)
            #expect(child.status == 0, "the child failed (exit \(child.status)): \(child.output.suffix(3000))")
            #expect(child.ranOneTest, "\(child.output.suffix(2000))")
        }

        @Test("ten userland hosts add no threads beyond the event loop's")
        func tenHostsNoThreads() async throws {
            guard isChildTestRun(Self.threadCountChild) else { return try await Self.passesInChild("tenHostsNoThreads") }
            let farm = ControllerFarm()
            farm.start()
            defer { farm.stop() }
            let loop = try KernelEventLoop()
            defer { loop.shutdown() }
            var endpoints: [H4Endpoint] = []
            for _ in 0..<10 { endpoints.append(try farm.add().1) }
            // The farm's and the loop's threads exist once their starts return; a pool
            // thread started meanwhile is what the slack below is for.
            let before = processThreadIDs()
            var hosts: [(UserlandHost, Task<Void, Never>)] = []
            for endpoint in endpoints { hosts.append(try await Self.startedHost(endpoint, loop: loop)) }
            let after = processThreadIDs()
            let added = after.subtracting(before).count
            print("UserlandHostEventLoopTests: threads before \(before.count), after ten started hosts \(after.count), new \(added)")
            // The old edge ran a reader and a writer thread per host: 20 here. A little slack
            // for the runtime's own threads, never one per host.
            #expect(added <= 5, "ten hosts added \(added) threads")
            #expect(loop.watchCount == 10)
            for (host, drain) in hosts {
                #expect(host.stopReason == nil)
                host.close()
                await drain.value
            }
            #expect(loop.watchCount == 0)
        }

        @Test("a host flooded by its controller does not delay another host's ATT exchange or command timeout")
        func floodedHostIsFair() async throws {
            let farm = ControllerFarm()
            farm.start()
            defer { farm.stop() }
            let loop = try KernelEventLoop()
            defer { loop.shutdown() }
            let (flooded, floodedEndpoint) = try farm.add()
            let (_, quietEndpoint) = try farm.add(ignoring: 0xFC00)
            let (floodedHost, floodedDrain) = try await Self.startedHost(floodedEndpoint, loop: loop)
            let quietEvents = EventRecord<HostEvent>()
            let timeout = Duration.milliseconds(1500)
            let (quietHost, quietDrain) = try await Self.startedHost(quietEndpoint, loop: loop, commandTimeout: timeout,
                                                                     events: quietEvents)
            farm.connect(1)
            try await quietEvents.waitFor("the quiet host's connection") { if case .connected = $0 { true } else { false } }
            #expect(quietHost.connectionHandles == [1])

            farm.setFlooding(flooded, true)
            // Driven by what happened, not by time: the flood is under way once the flooded
            // host has taken a megabyte and counted its packets.
            // No event counts the flood: look each millisecond, never spin, so the test's
            // own waiting does not take the loop thread's core.
            try await eventually("the flooded host took a megabyte") {
                farm.floodBytes(flooded) >= 1 << 20 && floodedHost.warningCounts.total >= 50_000
            }

            // ATT exchanges on the quiet host, each a Read Request answered by its controller.
            // The flood is endless until the test ends it below, so a loop that let the
            // flooded host hold this one up would never answer: every exchange and the
            // timeout completing while the flood goes on is the proof, and the limits of
            // the waits only guard against that hang. How the loop shares its turns and
            // fires due timers beside a descriptor that is always ready is proved by
            // order in KernelEventLoopWatchTests; the times below are printed for the
            // record, not bounded, since a loaded machine stretches any of them.
            let floodBefore = farm.floodBytes(flooded)
            var worst = Duration.zero
            for round in 0..<20 {
                let start = ContinuousClock.now
                try await quietHost.sendATT([0x0A, 0x03, 0x00], on: 1)
                try await quietEvents.waitFor("Read Response \(round + 1)", skipping: round) {
                    $0 == .attributeData(handle: 1, pdu: [0x0B, 0x42]) ? () : nil
                }
                worst = max(worst, ContinuousClock.now - start)
            }

            // A command its controller never answers: the timeout fires, never early.
            let sent = ContinuousClock.now
            var failure: HostError?
            do {
                _ = try await quietHost.perform(.rawCommand(opcode: HCIOpcode(rawValue: 0xFC00), parameters: []))
            } catch {
                failure = error
            }
            let late = ContinuousClock.now - sent - timeout
            let floodAfter = farm.floodBytes(flooded)
            let floodMB = Double(floodAfter) / 1_048_576
            print("UserlandHostEventLoopTests: under a flood of \(floodMB) MB, worst ATT round trip \(Self.seconds(worst) * 1000) ms, command timeout \(Self.seconds(late) * 1000) ms late")
            #expect(failure == .commandTimeout(HCIOpcode(rawValue: 0xFC00)))
            #expect(late >= .zero, "the command timed out \(late) early")
            // The flood went on while the quiet host was served, not only before it.
            #expect(floodAfter > floodBefore, "the flood stopped at \(floodBefore) bytes")
            #expect(floodedHost.stopReason == nil, "the flooded host still runs")
            farm.setFlooding(flooded, false)
            floodedHost.close()
            quietHost.close()
            await floodedDrain.value
            await quietDrain.value
        }

        @Test("a deadline set while the loop is idle fires, never early, and nothing wakes before it")
        func idleDeadlineWithoutPolling() async throws {
            guard isChildTestRun(Self.threadCountChild) else { return try await Self.passesInChild("idleDeadlineWithoutPolling") }
            let farm = ControllerFarm()
            farm.start()
            defer { farm.stop() }
            let (_, endpoint) = try farm.add(ignoring: 0xFC00)
            // The farm's thread exists once its start returns: only the loop's is new below.
            let beforeLoop = processThreadIDs()
            let loop = try KernelEventLoop()
            defer { loop.shutdown() }
            let timeout = Duration.milliseconds(1000)
            let (host, drain) = try await Self.startedHost(endpoint, loop: loop, commandTimeout: timeout)
            // The loop's thread and any thread the host started: what serves this host.
            let serving = processThreadIDs().subtracting(beforeLoop)
            let switchesBefore = serving.reduce(0) { $0 + voluntarySwitches($1) }
            let sent = ContinuousClock.now
            var failure: HostError?
            do {
                _ = try await host.perform(.rawCommand(opcode: HCIOpcode(rawValue: 0xFC00), parameters: []))
            } catch {
                failure = error
            }
            let elapsed = ContinuousClock.now - sent
            let wakeups = serving.reduce(0) { $0 + voluntarySwitches($1) } - switchesBefore
            print("UserlandHostEventLoopTests: idle 1 s deadline fired after \(Self.seconds(elapsed) * 1000) ms; serving threads \(serving.count) woke \(wakeups) times")
            #expect(failure == .commandTimeout(HCIOpcode(rawValue: 0xFC00)))
            // Never early. How late is the machine's: a loaded two-core machine once added
            // over 750 ms, so no bound on it here; the wake count below is what tells a
            // poll from a timer.
            #expect(elapsed >= timeout, "fired after \(elapsed)")
            // A 50 ms poll would wake about 20 times in that second.
            #expect(wakeups <= 6, "the threads serving an idle host woke \(wakeups) times in one second")
            host.close()
            await drain.value
        }
    }
}
