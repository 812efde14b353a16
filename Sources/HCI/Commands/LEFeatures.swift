/// The LE features a controller supports (Vol 6 Part B §4.6, first 64 bits).
public struct LEFeatures: OptionSet, Hashable, Sendable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let encryption = LEFeatures(rawValue: 1 << 0)
    public static let connectionParametersRequest = LEFeatures(rawValue: 1 << 1)
    public static let dataPacketLengthExtension = LEFeatures(rawValue: 1 << 5)
    public static let llPrivacy = LEFeatures(rawValue: 1 << 6)
    public static let le2MPHY = LEFeatures(rawValue: 1 << 8)
    public static let leCodedPHY = LEFeatures(rawValue: 1 << 11)
    /// The extended advertising, scanning and initiating commands exist.
    public static let extendedAdvertising = LEFeatures(rawValue: 1 << 12)
}
