/// HCI_Set_Event_Mask (Vol 4 Part E §7.3.1): which events the controller may send.
public struct SetEventMask: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    public var mask: UInt64

    /// The events an LE host needs: Disconnection Complete (bit 4), Encryption Change (7),
    /// Hardware Error (15), Data Buffer Overflow (25), Encryption Key Refresh Complete (47)
    /// and LE Meta (61). Number Of Completed Packets and Command Complete/Status cannot be masked.
    public static let leHost: UInt64 = 1 << 4 | 1 << 7 | 1 << 15 | 1 << 25 | 1 << 47 | 1 << 61

    public init(mask: UInt64 = SetEventMask.leHost) { self.mask = mask }
    public func encodeParameters(into buffer: inout [UInt8]) { buffer.appendLittleEndian(mask) }
}
