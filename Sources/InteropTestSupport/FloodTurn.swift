import Synchronization
import Testing

/// The test process's one flood turn, held while the suite this trait is on runs. Each
/// test target gathers its flood suites under one `.serialized` suite with this trait, so
/// no two floods run at once even across targets (they all run in one process): each
/// keeps a core busy for seconds, two at once beside the rest starved unrelated tests
/// past their time limits, and a host's fairness is not to be measured beside another flood.
public struct FloodTurn: SuiteTrait, TestScoping {
    public init() {}

    /// Once around the whole suite, not around each test in it: the suite runs them one
    /// at a time already, and a nested take would wait for itself.
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        await Self.turn.take()
        defer { Self.turn.give() }
        try await function()
    }

    private static let turn = Queue()

    /// A turn that suites wait for without holding a thread of the cooperative pool.
    private final class Queue: Sendable {
        private let state = Mutex<(taken: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func take() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.taken {
                        s.waiting.append(waiter)
                        return false
                    }
                    s.taken = true
                    return true
                }
                if now { waiter.resume() }
            }
        }

        func give() {
            let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard !s.waiting.isEmpty else {
                    s.taken = false
                    return nil
                }
                return s.waiting.removeFirst()
            }
            next?.resume()
        }
    }
}
