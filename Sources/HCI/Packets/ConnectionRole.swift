/// The local device's role on an LE connection, as LE Connection Complete reports it.
public enum ConnectionRole: UInt8, Hashable, Sendable, CustomStringConvertible {
    case central = 0x00
    case peripheral = 0x01

    public var description: String { self == .central ? "central" : "peripheral" }
}
