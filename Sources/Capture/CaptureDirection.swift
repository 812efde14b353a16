/// Which way an HCI packet travelled, seen from the host.
public enum CaptureDirection: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// Host to controller: commands and outgoing data.
    case sent = 0
    /// Controller to host: events and incoming data.
    case received = 1

    public var description: String { self == .sent ? "sent" : "received" }
}
