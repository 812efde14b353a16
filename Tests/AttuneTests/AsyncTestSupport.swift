import Attune

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out: \(what)" }
}

/// How long a wait for an event may take before the test calls it a hang. Only a guard:
/// no test depends on it passing. It is minutes because a loaded two-core machine once
/// held the whole cooperative pool for over four minutes (a blocking one-time setup in
/// another suite), and a waiting test must outlive that rather than fail beside it.
let hangGuard: Duration = .seconds(600)

/// Runs `operation`, failing instead of hanging when it takes longer than `limit`.
func within<T: Sendable>(_ what: String = "operation", limit: Duration = hangGuard,
                         _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut(what: what)
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
}

/// The first element of a sequence that satisfies `predicate`. Take the sequence (an
/// event broadcast, say) before causing the event: a listener sees only what comes after.
func first<S: AsyncSequence & Sendable>(_ sequence: S, _ what: String = "element",
                                        where predicate: @escaping @Sendable (S.Element) -> Bool) async throws -> S.Element
    where S.Element: Sendable {
    try await within(what) {
        for try await element in sequence where predicate(element) { return element }
        throw TimedOut(what: "\(what): the sequence ended")
    }
}

/// Waits until `condition` holds. Only for states that no event announces: it looks
/// again every few milliseconds, which a loaded machine can stretch freely, and fails
/// only at the hang guard.
func eventually(_ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    try await within(what) {
        while !(try await condition()) { try await Task.sleep(for: .milliseconds(2)) }
    }
}
