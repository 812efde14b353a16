/// A manager's state with the fact behind it.
public struct ManagerStatus: Hashable, Sendable, CustomStringConvertible {
    /// The Core Bluetooth-style state.
    public var state: ManagerState
    /// Why the state is not ``ManagerState/poweredOn``; nil when it is.
    public var cause: ManagerStateCause?

    /// A status from its parts.
    public init(state: ManagerState, cause: ManagerStateCause? = nil) {
        self.state = state
        self.cause = cause
    }

    /// The status a cause leads to.
    public init(cause: ManagerStateCause) {
        self.init(state: cause.state, cause: cause)
    }

    /// Ready, nothing wrong.
    public static let poweredOn = ManagerStatus(state: .poweredOn)

    public var description: String { cause.map { "\(state): \($0)" } ?? state.description }
}
