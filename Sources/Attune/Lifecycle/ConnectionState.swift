/// The connection state of a ``Peripheral``, like `CBPeripheralState`.
public enum ConnectionState: String, Hashable, Sendable, Codable, CustomStringConvertible {
    case disconnected
    case connecting
    case connected
    case disconnecting

    public var description: String { rawValue }
}
