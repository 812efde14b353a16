import Foundation

/// Runs blocking or long synchronous work (waiting for a process, reading a pipe, a
/// CPU-heavy loop) on a thread of its own rather than on the cooperative pool. The pool
/// has one thread per core: a test that holds one for seconds delays every actor and
/// task of the tests beside it, and the protocol timers of those (an ATT transaction's
/// 30 s) then fire at peers that never got to answer.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
