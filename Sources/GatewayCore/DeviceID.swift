/// A configured device, by its unique `name` from the gateway config (the MQTT topics use
/// the same name, so the decisions and the topics agree on identity even when the device
/// uses a resolvable private address that changes).
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The config's `name`.
    public var name: String

    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }

    public static func < (a: DeviceID, b: DeviceID) -> Bool { a.name < b.name }
    public var description: String { name }
}

/// An adapter (controller) of the gateway, by its config `transport` string, such as
/// `hci0` or `tcp:127.0.0.1:5000`.
public struct AdapterID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The config's `transport`.
    public var name: String

    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }

    public static func < (a: AdapterID, b: AdapterID) -> Bool { a.name < b.name }
    public var description: String { name }
}
