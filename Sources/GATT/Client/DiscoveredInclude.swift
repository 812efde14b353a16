import ATT

/// An include declaration found by Find Included Services (Vol 3 Part G §4.5.1).
public struct DiscoveredInclude: Hashable, Sendable, CustomStringConvertible {
    /// Handle of the include declaration itself.
    public var handle: AttributeHandle
    /// The included service's group.
    public var serviceRange: AttributeHandleRange
    /// The included service's UUID; for 128-bit UUIDs the client reads it from the
    /// included service's declaration.
    public var uuid: BluetoothUUID

    public init(handle: AttributeHandle, serviceRange: AttributeHandleRange, uuid: BluetoothUUID) {
        self.handle = handle
        self.serviceRange = serviceRange
        self.uuid = uuid
    }

    public var description: String { "include \(handle) → \(uuid) \(serviceRange)" }
}
