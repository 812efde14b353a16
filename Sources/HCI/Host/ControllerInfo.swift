/// What the initialisation sequence learnt about the controller.
public struct ControllerInfo: Hashable, Sendable {
    /// The public address (all zeros on controllers without one, such as emulated ones).
    public var publicAddress: BluetoothAddress
    /// The random address the host set, if any.
    public var randomAddress: BluetoothAddress?
    public var leFeatures: LEFeatures
    public var lmpFeatures: UInt64
    public var supportedCommands: SupportedCommands
    /// The largest ACL data payload the controller accepts in one packet.
    public var aclDataPacketLength: Int
    /// How many ACL packets the controller can hold at once, across all connections.
    public var totalACLDataPackets: Int
    /// True when the host drives the extended advertising, scanning and initiating commands.
    public var usesExtendedCommands: Bool
}
