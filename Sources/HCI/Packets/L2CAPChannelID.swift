/// An L2CAP channel identifier (Vol 3 Part A §2.1). The fixed LE channels are named.
public struct L2CAPChannelID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// The Attribute Protocol channel.
    public static let attribute = L2CAPChannelID(0x0004)
    /// The LE L2CAP signaling channel.
    public static let leSignaling = L2CAPChannelID(0x0005)
    /// The Security Manager Protocol channel.
    public static let securityManager = L2CAPChannelID(0x0006)

    /// "ATT", "LE signaling", "SMP", or "0x0040".
    public var description: String {
        switch rawValue {
        case 0x0004: return "ATT"
        case 0x0005: return "LE signaling"
        case 0x0006: return "SMP"
        default: return "0x" + hexString(rawValue, digits: 4)
        }
    }
}
