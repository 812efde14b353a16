/// The Flags AD type (Core Specification Supplement Part A §1.3).
public struct AdvertisingFlags: OptionSet, Hashable, Sendable, Codable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let leLimitedDiscoverable = AdvertisingFlags(rawValue: 1 << 0)
    public static let leGeneralDiscoverable = AdvertisingFlags(rawValue: 1 << 1)
    public static let brEDRNotSupported = AdvertisingFlags(rawValue: 1 << 2)
    public static let simultaneousLEAndBREDRController = AdvertisingFlags(rawValue: 1 << 3)
}
