/// Names one request made of the host, so its completion can be matched to it.
/// The caller chooses the values; the host only echoes them.
public struct HostRequestID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue)" }
}
