import HCI

/// A controller rejected an HCI command.
public struct HCICommandError: Error, Hashable, Sendable, CustomStringConvertible {
    public var opcode: HCIOpcode
    /// The HCI status code (Core Vol 1 Part F), such as 0x0C Command Disallowed.
    public var status: HCIStatus

    public init(opcode: HCIOpcode, status: HCIStatus) {
        self.opcode = opcode
        self.status = status
    }

    public var description: String {
        "HCI command \(opcode) failed: \(status.namedDescription)" + (status.hint(.command(opcode)).map { "; \($0)" } ?? "")
    }
}
