/// Which of its own addresses the controller puts in advertising, scanning and
/// initiating PDUs (Own_Address_Type, Vol 4 Part E §7.8.5 and others).
public enum OwnAddressType: UInt8, Hashable, Sendable {
    case `public` = 0x00
    /// The address set with LE Set Random Address (or per advertising set).
    case random = 0x01
    case resolvableOrPublic = 0x02
    case resolvableOrRandom = 0x03
}
