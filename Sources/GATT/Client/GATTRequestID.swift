/// Names one command given to a ``GATTClient``; the matching
/// ``GATTClientAction/complete(_:_:)`` carries the same id.
public struct GATTRequestID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: GATTRequestID, b: GATTRequestID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "#\(rawValue)" }
}
