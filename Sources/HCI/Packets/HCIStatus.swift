/// An HCI status or error code (Vol 1 Part F). 0x00 is success.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HCIStatus(0x00)

    // The codes the host and its tests name, by the spec's names (Vol 1 Part F §1.3);
    // ``name`` spells every code.
    public static let authenticationFailure = HCIStatus(0x05)
    public static let pinOrKeyMissing = HCIStatus(0x06)
    public static let memoryCapacityExceeded = HCIStatus(0x07)
    public static let connectionTimeout = HCIStatus(0x08)
    public static let connectionLimitExceeded = HCIStatus(0x09)
    public static let commandDisallowed = HCIStatus(0x0C)
    public static let invalidCommandParameters = HCIStatus(0x12)
    public static let remoteUserTerminatedConnection = HCIStatus(0x13)
    public static let remoteDevicePowerOff = HCIStatus(0x15)
    public static let connectionTerminatedByLocalHost = HCIStatus(0x16)
    public static let unspecifiedError = HCIStatus(0x1F)
    public static let unacceptableConnectionParameters = HCIStatus(0x3B)
    public static let connectionFailedToBeEstablished = HCIStatus(0x3E)
    /// Not a code the spec assigns (it names 0x00–0x45): the host's own failure where no
    /// controller status exists, such as a Connection Complete for a handle already in
    /// use. ``name`` spells it "Unassigned Error Code", so it never passes for a real one.
    public static let noControllerStatus = HCIStatus(0xFF)
    @inlinable public var isSuccess: Bool { rawValue == 0 }

    public var description: String {
        let s = String(rawValue, radix: 16)
        return "0x" + (s.count == 1 ? "0" + s : s)
    }
}
