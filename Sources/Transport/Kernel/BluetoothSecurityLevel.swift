import CBlueZ

/// The link security an L2CAP socket asks for (`BT_SECURITY`).
///
/// Raising it on a connected LE socket makes the kernel pair or encrypt; this
/// is the hook behind the GATT client's one-time retry after an
/// Insufficient Authentication or Encryption error.
public enum BluetoothSecurityLevel: UInt8, Comparable, Sendable, CustomStringConvertible {
    /// No encryption.
    case low = 1     // BT_SECURITY_LOW
    /// Encryption with an unauthenticated key.
    case medium = 2  // BT_SECURITY_MEDIUM
    /// Encryption with an authenticated (MITM-protected) key.
    case high = 3    // BT_SECURITY_HIGH
    /// Authenticated LE Secure Connections with a 128-bit key.
    case fips = 4    // BT_SECURITY_FIPS

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .low: return "low"
        case .medium: return "medium"
        case .high: return "high"
        case .fips: return "fips"
        }
    }
}
