import ATT
import Capture

/// The two roles of an ATT bearer (Vol 3 Part F §3.3).
public enum ATTRole: Hashable, Sendable, CustomStringConvertible {
    case client
    case server

    /// The role that sends a PDU with this opcode: requests, commands and confirmations
    /// come from the client; responses, notifications and indications from the server.
    /// Nil for opcodes the spec does not define.
    public static func sender(of opcode: ATTOpcode) -> ATTRole? {
        switch opcode.kind {
        case .request, .command, .confirmation: return .client
        case .response, .notification, .indication: return .server
        case .unknown: return nil
        }
    }

    public var peer: ATTRole { self == .client ? .server : .client }

    public var description: String { self == .client ? "client" : "server" }
}
