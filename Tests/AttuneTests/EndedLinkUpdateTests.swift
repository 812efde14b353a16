import Testing
@testable import Attune
@testable import Transport

/// A link that ended is not waited for: `updateValue` sends to the others, and
/// `readyToUpdateSubscribers` returns, even before the link's own task has removed it.
/// Before, an ended link made every update fail while `readyToUpdateSubscribers`
/// returned at once, so a caller looping on the two never suspended (two such loops
/// held both threads of a two-core pool).
@Suite("Updates past an ended link", .timeLimit(.minutes(10)))
struct EndedLinkUpdateTests {
    /// Ends the link and updates in one turn of the manager's actor, so that its
    /// removal task cannot run in between.
    static func endThenUpdate(_ manager: isolated PeripheralManager, _ radio: MemoryRadio,
                              _ characteristic: PublishedCharacteristic) -> (updated: Bool, stillListed: Bool) {
        radio.dropLinks()
        let updated = manager.updateValue([1], for: characteristic)
        return (updated, !manager.connectedCentrals.isEmpty)
    }

    @Test func anEndedLinkDoesNotMakeUpdatesFail() async throws {
        let rig = try await BoundedPathTests.Rig()
        try await rig.peripheral.setNotifyValue(true, for: rig[BoundedPathTests.measurement])
        try await eventually("subscribed") { await !rig.manager.subscribedCentrals(for: rig.measurement).isEmpty }
        let (updated, stillListed) = await Self.endThenUpdate(rig.manager, rig.radio, rig.measurement)
        #expect(stillListed, "the removal had not run: this is the state the old code spun in")
        #expect(updated, "nothing can be sent on the ended link, so nothing waits for it")
        // And the signal returns without waiting for the link that is gone.
        await rig.manager.readyToUpdateSubscribers()
        try await eventually("removed") { await rig.manager.connectedCentrals.isEmpty }
    }
}
