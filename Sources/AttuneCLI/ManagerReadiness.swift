import Attune

/// Waits out ``ManagerState/unknown``: the userland host initialises the controller in
/// the background (HCI Reset and the rest), and a command must not start before it knows
/// whether the controller answered.
enum ManagerReadiness {
    /// The status once it is no longer `unknown`, or after `timeout` (still `unknown`,
    /// reported as a controller that did not finish initialising).
    static func settled(_ status: () -> ManagerStatus, timeout: Duration = .seconds(10)) async -> ManagerStatus {
        let deadline = ContinuousClock.now + timeout
        var current = status()
        while current.state == .unknown, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            current = status()
        }
        if current.state == .unknown {
            return ManagerStatus(cause: .controllerFailed("no answer to the initialisation within \(timeout)"))
        }
        return current
    }
}
