/// A controller rejected an HCI command, or never answered it.
public struct HCICommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The command's opcode (OGF << 10 | OCF).
    public var opcode: UInt16
    /// The HCI status code (Core Vol 1 Part F), such as 0x0C Command Disallowed.
    public var status: UInt8

    public init(opcode: UInt16, status: UInt8) {
        self.opcode = opcode
        self.status = status
    }

    public var description: String {
        let hex = { (value: Int) in String(value, radix: 16, uppercase: true) }
        return "HCI command 0x\(hex(Int(opcode))) failed with status 0x\(hex(Int(status)))"
    }
}
