/// An HCI error code (Vol 1 Part F), as a Connection Complete status, a Command Status
/// status or a Disconnection Complete reason. GatewayCore depends on BluetoothCore only,
/// so it carries the raw byte; HCI's `HCIStatus` converts through `rawValue`.
public struct HCIReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x02: what a Connection Complete reports after LE Create Connection Cancel.
    public static let unknownConnectionIdentifier = HCIReason(0x02)
    /// 0x07
    public static let memoryCapacityExceeded = HCIReason(0x07)
    /// 0x08: the link was lost (out of range, peer gone).
    public static let connectionTimeout = HCIReason(0x08)
    /// 0x09
    public static let connectionLimitExceeded = HCIReason(0x09)
    /// 0x0C: typically "a connect is already pending" or "no room".
    public static let commandDisallowed = HCIReason(0x0C)
    /// 0x0D
    public static let limitedResources = HCIReason(0x0D)
    /// 0x13
    public static let remoteUserTerminated = HCIReason(0x13)
    /// 0x16: we disconnected it.
    public static let localHostTerminated = HCIReason(0x16)
    /// 0x22
    public static let llResponseTimeout = HCIReason(0x22)
    /// 0x3E: the link was created but the first packets were never exchanged.
    public static let connectionFailedToBeEstablished = HCIReason(0x3E)

    /// `0x3E`
    public var description: String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(rawValue >> 4)]) + String(digits[Int(rawValue & 0xF)])
    }
}
