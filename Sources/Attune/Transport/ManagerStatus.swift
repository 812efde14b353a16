/// A manager's state with the fact behind it.
public struct ManagerStatus: Hashable, Sendable, CustomStringConvertible {
    public var state: ManagerState
    /// Why the state is not ``ManagerState/poweredOn``; nil when it is.
    public var cause: ManagerStateCause?

    public init(state: ManagerState, cause: ManagerStateCause? = nil) {
        self.state = state
        self.cause = cause
    }

    public init(cause: ManagerStateCause) {
        self.init(state: cause.state, cause: cause)
    }

    public static let poweredOn = ManagerStatus(state: .poweredOn)

    public var description: String { cause.map { "\(state): \($0)" } ?? state.description }
}
