/// The value of a Client Characteristic Configuration descriptor (Vol 3 Part G §3.3.3.3).
public struct ClientCharacteristicConfiguration: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let notification = ClientCharacteristicConfiguration(rawValue: 0x0001)
    public static let indication = ClientCharacteristicConfiguration(rawValue: 0x0002)

    /// Bits the spec defines; the rest are reserved.
    public static let defined: ClientCharacteristicConfiguration = [.notification, .indication]

    /// The two-octet little-endian value.
    public var bytes: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }
}

/// Client Supported Features bits (Vol 3 Part G §7.2).
public struct ClientSupportedFeatures: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let robustCaching = ClientSupportedFeatures(rawValue: 0x01)
    public static let enhancedATTBearer = ClientSupportedFeatures(rawValue: 0x02)
    public static let multipleHandleValueNotifications = ClientSupportedFeatures(rawValue: 0x04)
    public static let defined: ClientSupportedFeatures = [.robustCaching, .enhancedATTBearer, .multipleHandleValueNotifications]
}
