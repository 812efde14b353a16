import Synchronization
import Testing
@testable import Attune
@testable import Transport

/// ``CentralManager/resetAdapter()`` on the memory radio resets that central's controller
/// alone: its links end (the peer sees them go), its scans and its connect in progress
/// end, its state goes through resetting back to poweredOn, and another central on the
/// same radio keeps its link.
@Suite("CentralManager.resetAdapter on the memory radio", .timeLimit(.minutes(10)))
struct MemoryAdapterResetTests {
    @Test func theResetEndsThisCentralsLinksScansAndConnectAndComesBack() async throws {
        let rig = try await SeveralCentralsTests.Rig()
        let (central, peripheral, _) = try await rig.subscribedCentral(mtu: 23)
        let (_, bystander, _) = try await rig.subscribedCentral(mtu: 23)
        try await eventually("two centrals on the peripheral") { await rig.manager.connectedCentrals.count == 2 }
        let events = peripheral.lifecycleEvents
        let states = central.stateUpdates
        let scan = try central.scan(allowDuplicates: true)
        // A connect that waits for a peer nobody advertises as.
        let absent = BluetoothAddress(rawValue: 0xC0_00_00_00_99_99)
        let pending = Task { () -> Result<Peripheral, AttuneError> in
            do throws(AttuneError) {
                return .success(try await central.connect(absent, type: .random, timeout: .seconds(30)))
            } catch {
                return .failure(error)
            }
        }
        try await eventually("the connect waits on the radio") { rig.radio.state.withLock { $0.pending.count } == 1 }

        try await central.resetAdapter()

        #expect(central.state == .poweredOn)
        try await within("the scan ends") { for await _ in scan {} }
        let outcome = await pending.value
        guard case .failure(.connectionFailed) = outcome else {
            Issue.record("the waiting connect should fail, got \(outcome)")
            return
        }
        let disconnected = try await first(events, "the link's end") { event in
            if case .disconnected = event { return true } else { return false }
        }
        #expect(disconnected == .disconnected(.hci(HCIStatus.connectionTerminatedByLocalHost), reconnectAt: nil),
                "ended by our own (local) controller")
        try await eventually("the peer saw the link go") { await rig.manager.connectedCentrals.count == 1 }
        #expect(await bystander.state == .connected, "another central's controller is not reset")
        let seen = try await within("states") { () -> [ManagerState] in
            var seen: [ManagerState] = []
            for await state in states {
                seen.append(state)
                if seen.count == 3 { break }
            }
            return seen
        }
        #expect(seen == [.poweredOn, .resetting, .poweredOn])
        #expect(rig.manager.state == .poweredOn, "the peripheral's controller kept its state")

        // Back in business: it scans and connects again.
        let again = try await first(try central.scan(services: [SeveralCentralsTests.heartRate]), "advertisement") { _ in true }
        try await central.connect(central.peripheral(for: again))
        #expect(await peripheral.state == .connected)
    }

    @Test func aResetOfAPoweredOffRadioFailsAsUnavailable() async throws {
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        radio.setPowered(false)
        await #expect(throws: AttuneError.unavailable(.adapterDown("memory radio"))) { try await central.resetAdapter() }
    }
}
