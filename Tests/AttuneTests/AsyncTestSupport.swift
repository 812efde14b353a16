import Attune
// The waits every test target shares; re-exported so that each file of the target has them.
@_exported import WaitTestSupport

/// The first element of a sequence that satisfies `predicate`. Take the sequence (an
/// event broadcast, say) before causing the event: a listener sees only what comes after.
func first<S: AsyncSequence & Sendable>(_ sequence: S, _ what: String = "element",
                                        where predicate: @escaping @Sendable (S.Element) -> Bool) async throws -> S.Element
    where S.Element: Sendable {
    try await within(what) {
        for try await element in sequence where predicate(element) { return element }
        throw WaitFailed("\(what): the sequence ended")
    }
}
