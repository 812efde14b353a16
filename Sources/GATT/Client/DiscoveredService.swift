import ATT

/// A service found by discovery (Vol 3 Part G §4.4): its declaration handle, the end of
/// its group, its UUID and, once discovered, what it holds.
public struct DiscoveredService: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    /// The declaration handle through the End Group Handle.
    public var handleRange: AttributeHandleRange
    public var isPrimary: Bool
    public var includes: [DiscoveredInclude]
    public var characteristics: [DiscoveredCharacteristic]

    public init(uuid: BluetoothUUID, handleRange: AttributeHandleRange, isPrimary: Bool = true,
                includes: [DiscoveredInclude] = [], characteristics: [DiscoveredCharacteristic] = []) {
        self.uuid = uuid
        self.handleRange = handleRange
        self.isPrimary = isPrimary
        self.includes = includes
        self.characteristics = characteristics
    }

    public var description: String {
        "\(isPrimary ? "primary" : "secondary") service \(uuid) \(handleRange)"
    }
}
