/// Names one connected client of a ``GATTServer`` (typically the LE connection handle).
public struct ConnectionID: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt64) { rawValue = value }
    public var description: String { "connection \(rawValue)" }
}

/// The identity of a bonded peer (its identity address, as text), under which the server
/// persists per-client state across connections.
public struct PeerIdentity: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}
