/// When the gateway holds a link to a device: the config's `connect` key.
public enum ConnectPolicy: Hashable, Sendable {
    /// Always connected; reconnected after every loss.
    case keep
    /// Connected every `every`, and disconnected when its work (reads) is done.
    case poll(every: Duration)
    /// Connected only when asked (a `/set` write queued, say) and disconnected after idle.
    case onDemand
    /// Never connected: advertisements only.
    case never

    /// Lower goes first when several devices want the one pending connect; nil for `never`.
    public var priority: Int? {
        switch self {
        case .keep: 0
        case .poll: 1
        case .onDemand: 2
        case .never: nil
        }
    }
}
