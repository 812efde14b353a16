/// Where an HCI status was reported. The same code means different things in different
/// places (0x0C after LE Create Connection is an attempt already pending; after LE Set
/// Scan Enable, a scan already running), so a hint needs the place.
public enum HCIStatusContext: Hashable, Sendable {
    /// The status of this command's Command Complete or Command Status.
    case command(HCIOpcode)
    /// A connection attempt that failed: the status of LE Create Connection (or its
    /// extended form) or of the LE Connection Complete that ended it.
    case connectionAttempt
    /// The reason of a Disconnection Complete: why an established link ended.
    case disconnection
}
