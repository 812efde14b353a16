import Transport

extension ControllerBackend {
    /// The current state, then every change the backend reports: what both managers'
    /// `stateUpdates` give (Core Bluetooth's `centralManagerDidUpdateState` and
    /// `peripheralManagerDidUpdateState`). The stream ends when the backend's does.
    func stateUpdates() -> AsyncStream<ManagerState> {
        let updates = statusUpdates()
        let initial = status.state
        return AsyncStream { continuation in
            continuation.yield(initial)
            let task = Task {
                for await status in updates { continuation.yield(status.state) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
