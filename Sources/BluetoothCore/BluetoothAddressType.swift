/// The kind of LE device address, as HCI LE events report a peer's address type
/// (Vol 4 Part E §7.7.65.1 and §7.7.65.10).
///
/// The identity variants mean the controller resolved a resolvable private address and
/// reports the peer's identity address instead.
public enum BluetoothAddressType: UInt8, Hashable, Sendable, CustomStringConvertible {
    case `public` = 0x00
    case random = 0x01
    case publicIdentity = 0x02
    case randomIdentity = 0x03

    /// True for the public forms.
    public var isPublic: Bool { self == .public || self == .publicIdentity }

    public var description: String {
        switch self {
        case .public: return "public"
        case .random: return "random"
        case .publicIdentity: return "public identity"
        case .randomIdentity: return "random identity"
        }
    }
}
