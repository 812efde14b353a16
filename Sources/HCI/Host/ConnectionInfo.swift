/// What the host knows about an LE connection when it comes up.
public struct ConnectionInfo: Hashable, Sendable {
    public var handle: UInt16
    /// Our role on the link.
    public var role: ConnectionRole
    public var peerAddress: BluetoothAddress
    public var peerAddressType: BluetoothAddressType
    /// The address type we used: the one we advertised or initiated with.
    public var ownAddressType: OwnAddressType
    /// In units of 1.25 ms.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16

    public init(handle: UInt16, role: ConnectionRole, peerAddress: BluetoothAddress,
                peerAddressType: BluetoothAddressType, ownAddressType: OwnAddressType,
                connectionInterval: UInt16, peripheralLatency: UInt16, supervisionTimeout: UInt16) {
        self.handle = handle
        self.role = role
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.ownAddressType = ownAddressType
        self.connectionInterval = connectionInterval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
    }
}
