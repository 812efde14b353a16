@testable import Attune

/// The lifecycle appends into a caller-owned list; these return the list of one input,
/// so tests compare what each step asked for.
extension ConnectionLifecycle {
    mutating func connect(at now: MonotonicTime) -> [LifecycleAction] { collect { $0.connect(at: now, into: &$1) } }
    mutating func cancel(at now: MonotonicTime) -> [LifecycleAction] { collect { $0.cancel(at: now, into: &$1) } }
    mutating func linkUp(at now: MonotonicTime) -> [LifecycleAction] { collect { $0.linkUp(at: now, into: &$1) } }
    mutating func gattPhase(_ phase: LifecyclePhase) -> [LifecycleAction] { collect { $0.gattPhase(phase, into: &$1) } }
    mutating func gattReady(at now: MonotonicTime) -> [LifecycleAction] { collect { $0.gattReady(at: now, into: &$1) } }
    mutating func linkFailed(_ reason: DisconnectReason, at now: MonotonicTime) -> [LifecycleAction] {
        collect { $0.linkFailed(reason, at: now, into: &$1) }
    }
    mutating func linkDown(_ reason: DisconnectReason, at now: MonotonicTime) -> [LifecycleAction] {
        collect { $0.linkDown(reason, at: now, into: &$1) }
    }
    mutating func tick(at now: MonotonicTime) -> [LifecycleAction] { collect { $0.tick(at: now, into: &$1) } }

    private mutating func collect(_ input: (inout ConnectionLifecycle, inout [LifecycleAction]) -> Void) -> [LifecycleAction] {
        var actions: [LifecycleAction] = []
        input(&self, &actions)
        return actions
    }
}
