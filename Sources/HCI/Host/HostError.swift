/// Why a request failed or the host stopped. Every case says what and where.
public enum HostError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The controller did not answer a command within the command timeout.
    case commandTimeout(HCIOpcode)
    /// The controller answered a command with an error status.
    case commandFailed(HCIOpcode, HCIStatus)
    /// A command's return parameters could not be decoded.
    case malformedReturnParameters(HCIOpcode, HCIDecodingError)
    /// The byte stream to the controller ended or failed.
    case transportClosed(String)
    /// The controller reported a hardware error (event 0x10) with this code.
    case hardwareError(UInt8)
    /// The initiator gave up after the connection timeout.
    case connectionTimedOut
    /// The application cancelled a pending connection.
    case connectionCancelled
    /// The controller could not establish the connection.
    case connectionFailed(HCIStatus)
    /// The link went down before the request finished.
    case disconnected(handle: UInt16, reason: HCIStatus)
    /// The initialisation sequence has not finished, or the host has stopped.
    case notReady
    /// No connection has this handle.
    case unknownConnection(UInt16)
    /// Another request of the same kind is still running.
    case busy(String)
    /// The connection is being disconnected at our request, so it takes no more data:
    /// data queued now would only be flushed with the link.
    case disconnecting(UInt16)
    /// The request itself is invalid.
    case invalidRequest(String)
    /// The controller cannot serve as an LE controller, for the reason given.
    case unsupportedController(String)
    /// The application reset the controller (``HostRequest/reset``) before the request finished.
    case controllerReset

    public var description: String {
        switch self {
        case .commandTimeout(let opcode): "HCI command \(opcode) got no Command Complete or Command Status in time"
        case .commandFailed(let opcode, let status):
            "HCI command \(opcode) failed: \(status.namedDescription)" + (status.hint(.command(opcode)).map { "; \($0)" } ?? "")
        case .malformedReturnParameters(let opcode, let error): "HCI command \(opcode): \(error)"
        case .transportClosed(let why): "transport closed: \(why)"
        case .hardwareError(let code): "controller hardware error 0x\(String(code, radix: 16))"
        case .connectionTimedOut: "connection attempt timed out"
        case .connectionCancelled: "connection attempt cancelled"
        case .connectionFailed(let status):
            "connection failed: \(status.namedDescription)" + (status.hint(.connectionAttempt).map { "; \($0)" } ?? "")
        case .disconnected(let handle, let reason):
            "connection 0x\(String(handle, radix: 16)) disconnected: \(reason.namedDescription)"
        case .notReady: "the HCI host is not ready"
        case .unknownConnection(let handle): "no connection with handle 0x\(String(handle, radix: 16))"
        case .busy(let what): "busy: \(what)"
        case .disconnecting(let handle): "connection 0x\(String(handle, radix: 16)) is being disconnected and takes no more data"
        case .invalidRequest(let why): "invalid request: \(why)"
        case .unsupportedController(let why): "unsupported controller: \(why)"
        case .controllerReset: "the controller was reset"
        }
    }
}
