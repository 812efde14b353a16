import HCI

/// The command flow's waiting side of a ``UserlandHost``: the request ids, the task that
/// awaits ``UserlandHost/start()`` and each task that awaits a request's completion.
/// Requests nobody waits for (``UserlandHost/submit(_:)``) have no entry here.
struct HostRequestWaiters {
    typealias Completion = CheckedContinuation<Result<HostCompletion, HostError>, Never>
    typealias Readiness = CheckedContinuation<Result<ControllerInfo, HostError>, Never>

    /// Where ``UserlandHost/start()`` stands.
    enum Start {
        case notCalled
        /// Called; the task waits until the controller is initialised.
        case waiting(Readiness)
        /// Answered: the controller is ready, or the host stopped first.
        case answered
    }

    var start = Start.notCalled
    /// The next request id; the Security Manager allocates its requests' ids from it too.
    var nextID: UInt64 = 1
    private var waiting: [HostRequestID: Completion] = [:]

    /// A fresh id for a request; every request gets one, waited for or not.
    mutating func makeID() -> HostRequestID {
        defer { nextID += 1 }
        return HostRequestID(nextID)
    }

    /// Parks the task that waits for request `id`.
    mutating func wait(_ id: HostRequestID, _ continuation: Completion) {
        waiting[id] = continuation
    }

    /// Resumes the task waiting for `completion`; false when nobody waits for it here.
    mutating func complete(_ completion: HostOutput.Completion) -> Bool {
        guard let waiter = waiting.removeValue(forKey: completion.id) else { return false }
        waiter.resume(returning: completion.result)
        return true
    }

    /// The controller is initialised: ``UserlandHost/start()`` returns.
    mutating func ready(_ info: ControllerInfo) {
        if case .waiting(let continuation) = start { continuation.resume(returning: .success(info)) }
        start = .answered
    }

    /// The host stopped: every waiter fails with `error`.
    mutating func failAll(_ error: HostError) {
        if case .waiting(let continuation) = start { continuation.resume(returning: .failure(error)) }
        start = .answered
        for (_, waiter) in waiting { waiter.resume(returning: .failure(error)) }
        waiting = [:]
    }
}
