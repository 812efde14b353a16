import CBlueZ

/// The kind of LE address, as the kernel's `bdaddr_type` spells it.
public enum LEAddressType: UInt8, Hashable, Sendable, CustomStringConvertible {
    case `public` = 1  // BDADDR_LE_PUBLIC
    case random = 2    // BDADDR_LE_RANDOM

    /// The address type as carried in HCI LE events (0 public, 1 random).
    public init?(hciValue: UInt8) {
        switch hciValue {
        case 0, 2: self = .public   // 2: resolved public identity
        case 1, 3: self = .random   // 3: resolved random identity
        default: return nil
        }
    }

    /// The address type as HCI LE commands take it.
    public var hciValue: UInt8 { self == .public ? 0 : 1 }

    public var description: String { self == .public ? "public" : "random" }
}
