import ATT

/// A characteristic descriptor found by Discover All Characteristic Descriptors
/// (Vol 3 Part G §4.7.1).
public struct DiscoveredDescriptor: Hashable, Sendable, CustomStringConvertible {
    public var handle: AttributeHandle
    public var uuid: BluetoothUUID
    public init(handle: AttributeHandle, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
    public var description: String { "descriptor \(uuid) \(handle)" }
}
