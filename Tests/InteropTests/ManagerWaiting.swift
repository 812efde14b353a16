import ControllerTestSupport
import Transport

/// The first state of `updates` past `.unknown`: `.poweredOn` once an H4 or kernel
/// manager has initialised its controller, or why it cannot. `stateUpdates` starts with
/// the current state, so a manager already settled answers at once.
func settledState(_ updates: AsyncStream<ManagerState>, _ what: String = "the manager's state") async throws -> ManagerState {
    try await within("\(what) past unknown") {
        for await state in updates where state != .unknown && state != .resetting { return state }
        throw WaitFailed("\(what): the state updates ended")
    }
}
