/// The Characteristic Properties bit field of a characteristic declaration
/// (Vol 3 Part G §3.3.1.1).
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    public static let read = CharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    public static let write = CharacteristicProperties(rawValue: 0x08)
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = CharacteristicProperties(rawValue: 0x80)
}

/// The Characteristic Extended Properties descriptor value (Vol 3 Part G §3.3.3.1).
public struct CharacteristicExtendedProperties: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The characteristic may take part in a Reliable Write (queued writes to more than
    /// one attribute executed together).
    public static let reliableWrite = CharacteristicExtendedProperties(rawValue: 0x0001)
    /// The Characteristic User Description descriptor is writable.
    public static let writableAuxiliaries = CharacteristicExtendedProperties(rawValue: 0x0002)
}
