/// How long a test waits for something before it calls the wait a hang. Only a guard:
/// no test depends on it passing. Minutes, because a loaded two-core machine has held
/// a test's tasks for over four minutes (the cooperative pool blocked by one-time setup
/// elsewhere in the suite), and a waiting test must outlast that, not fail beside it.
public let hangGuard: Duration = .seconds(600)

/// A wait that reached ``hangGuard`` (or its own limit), or whose events ended first.
public struct WaitFailed: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs `operation`, failing with `what` instead of hanging when it takes longer than `limit`.
public func within<T: Sendable>(_ what: String = "operation", limit: Duration = hangGuard,
                                _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw WaitFailed("nothing within \(limit): \(what)")
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
}

/// Waits until `condition` holds. Only for a state no event announces (a count a
/// controller thread keeps, say): it looks again every millisecond, which a loaded
/// machine may stretch freely, and fails only at `limit`.
public func eventually(_ what: String, limit: Duration = hangGuard,
                       _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !(try await condition()) {
        guard ContinuousClock.now < deadline else { throw WaitFailed("nothing within \(limit): \(what)") }
        try await Task.sleep(for: .milliseconds(1))
    }
}
