import ATT

/// A characteristic found by discovery (Vol 3 Part G §4.6), with its descriptors once
/// they have been discovered.
public struct DiscoveredCharacteristic: Hashable, Sendable, CustomStringConvertible {
    /// Handle of the characteristic declaration.
    public var declarationHandle: AttributeHandle
    public var properties: CharacteristicProperties
    public var valueHandle: AttributeHandle
    public var uuid: BluetoothUUID
    /// The last handle that belongs to the characteristic: the attribute before the next
    /// declaration, or the end of the service.
    public var endHandle: AttributeHandle
    public var descriptors: [DiscoveredDescriptor]
    /// The Characteristic Extended Properties value, when the descriptor exists and was read.
    public var extendedProperties: UInt16?

    public init(declarationHandle: AttributeHandle, properties: CharacteristicProperties, valueHandle: AttributeHandle,
                uuid: BluetoothUUID, endHandle: AttributeHandle? = nil, descriptors: [DiscoveredDescriptor] = [],
                extendedProperties: UInt16? = nil) {
        self.declarationHandle = declarationHandle
        self.properties = properties
        self.valueHandle = valueHandle
        self.uuid = uuid
        self.endHandle = endHandle ?? valueHandle
        self.descriptors = descriptors
        self.extendedProperties = extendedProperties
    }

    /// The Client Characteristic Configuration descriptor, when discovered.
    public var clientConfigurationHandle: AttributeHandle? {
        descriptors.first { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }?.handle
    }

    /// The handles where descriptors may live: after the value, through ``endHandle``.
    public var descriptorRange: AttributeHandleRange? {
        guard let first = valueHandle.successor, first <= endHandle else { return nil }
        return AttributeHandleRange(start: first, end: endHandle)
    }

    public var description: String {
        "characteristic \(uuid) decl \(declarationHandle) value \(valueHandle) [\(properties)]"
    }
}
