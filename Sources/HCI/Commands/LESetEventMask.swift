/// HCI_LE_Set_Event_Mask (Vol 4 Part E §7.8.1): which LE Meta subevents the controller may send.
public struct LESetEventMask: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    public var mask: UInt64

    /// Bit n enables subevent n+1. Enabled: Connection Complete, Advertising Report,
    /// Connection Update Complete, Read Remote Features Complete, Data Length Change,
    /// Enhanced Connection Complete, PHY Update Complete, Extended Advertising Report,
    /// Scan Timeout, Advertising Set Terminated.
    ///
    /// Left off on purpose: Long Term Key Request (5) and Remote Connection Parameter
    /// Request (6). Masked, the controller answers those itself (negative reply, or its
    /// own parameter choice), so a peer never waits on a host that cannot answer yet.
    public static let leHost: UInt64 = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 6 | 1 << 9
        | 1 << 11 | 1 << 12 | 1 << 16 | 1 << 17

    /// LE Long Term Key Request (subevent 0x05), for a host whose Security Manager answers it.
    public static let longTermKeyRequest: UInt64 = 1 << 4

    public init(mask: UInt64 = LESetEventMask.leHost) { self.mask = mask }
    public func encodeParameters(into buffer: inout [UInt8]) { buffer.appendLittleEndian(mask) }
}
