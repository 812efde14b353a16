import HCI

/// An LE connection as a capture reveals it through LE Connection Complete.
public struct CapturedConnection: Hashable, Sendable {
    /// The controller (monitor index) that reported the connection.
    public var controller: UInt16
    public var handle: UInt16
    /// The role of that controller's host.
    public var role: ConnectionRole
    public var peerAddress: BluetoothAddress
    public var peerAddressType: BluetoothAddressType
    /// Microseconds since the Unix epoch.
    public var connectedAt: Int64

    public init(controller: UInt16, handle: UInt16, role: ConnectionRole, peerAddress: BluetoothAddress,
                peerAddressType: BluetoothAddressType, connectedAt: Int64) {
        self.controller = controller
        self.handle = handle
        self.role = role
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.connectedAt = connectedAt
    }
}
