/// What a finished request produced.
public enum HostCompletion: Hashable, Sendable {
    case done
    /// A connection we initiated is up.
    case connected(ConnectionInfo)
    /// A connection we closed is down, with the reason the controller reported.
    case disconnected(reason: HCIStatus)
    /// The return parameters of a raw command's Command Complete (Status first), or
    /// empty for a command answered with Command Status.
    case returnParameters([UInt8])
}
