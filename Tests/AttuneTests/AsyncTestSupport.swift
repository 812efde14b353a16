import Attune

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out: \(what)" }
}

/// Runs `operation`, failing instead of hanging when it takes longer than `seconds`.
func within<T: Sendable>(_ seconds: Double, _ what: String = "operation",
                         _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            throw TimedOut(what: what)
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
}

/// The first element of a sequence that satisfies `predicate`.
func first<S: AsyncSequence & Sendable>(_ sequence: S, _ what: String = "element", seconds: Double = 5,
                                        where predicate: @escaping @Sendable (S.Element) -> Bool) async throws -> S.Element
    where S.Element: Sendable {
    try await within(seconds, what) {
        for try await element in sequence where predicate(element) { return element }
        throw TimedOut(what: "\(what): the sequence ended")
    }
}

/// Waits until `condition` holds, yielding between looks (no fixed sleep).
func eventually(_ what: String, _ condition: @escaping @Sendable () async -> Bool) async throws {
    try await within(10, what) {
        while !(await condition()) { await Task.yield() }
    }
}
