/// A management command the kernel refused or never answered.
public struct MgmtCommandError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The kernel's mgmt status (doc/mgmt-api.txt: 0x11 Invalid Index, 0x0D Invalid
        /// Parameters, 0x14 Permission Denied, …).
        case status(UInt8)
        /// No Command Complete or Command Status arrived in time.
        case timedOut
        /// The agent was closed, or the command could not be written.
        case notSent(String)
    }

    public var opcode: UInt16
    public var adapterIndex: UInt16
    public var reason: Reason

    public init(opcode: UInt16, adapterIndex: UInt16, reason: Reason) {
        self.opcode = opcode
        self.adapterIndex = adapterIndex
        self.reason = reason
    }

    public var description: String {
        let command = "mgmt command 0x\(String(opcode, radix: 16)) on hci\(adapterIndex)"
        switch reason {
        case .status(let status): return "\(command) failed with status 0x\(String(status, radix: 16))"
        case .timedOut: return "\(command) was not answered in time"
        case .notSent(let why): return "\(command) was not sent: \(why)"
        }
    }
}
