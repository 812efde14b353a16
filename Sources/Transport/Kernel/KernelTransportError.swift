import EventLoop
import Glibc
import HCI

/// A failure of a kernel Bluetooth socket, typed from the `errno` the kernel
/// returned, with the operation that failed.
public struct KernelTransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, in terms a caller can act on.
    public enum Kind: Equatable, Sendable {
        /// The kernel has no Bluetooth (`EAFNOSUPPORT`, `EPROTONOSUPPORT`).
        case unsupported
        /// The process lacks the privilege (`EPERM`, `EACCES`).
        case unauthorized
        /// The peer refused the connection (`ECONNREFUSED`).
        case connectionRefused
        /// The peer is not reachable (`EHOSTDOWN`, `EHOSTUNREACH`).
        case hostDown
        /// The operation did not complete in time (`ETIMEDOUT`, or our own deadline).
        case timedOut
        /// The peer ended the link (`ECONNRESET`, or end of stream).
        case connectionReset
        /// The local host ended the link (`ECONNABORTED`).
        case connectionAborted
        /// The adapter or address is in use (`EBUSY`, `EADDRINUSE`, `EALREADY`).
        case busy
        /// The socket is not connected (`ENOTCONN`, `EPIPE`).
        case notConnected
        /// No adapter with that address or index (`ENODEV`, `EADDRNOTAVAIL`).
        case noSuchAdapter
        /// A PDU larger than the channel's MTU (`EMSGSIZE`).
        case messageTooLong
        /// The socket was closed by this process.
        case closed
        /// Any other `errno`.
        case other
    }

    public var kind: Kind
    /// The `errno` the kernel returned; 0 when the error did not come from a system call.
    public var errno: Int32
    /// The operation that failed, such as `"connect"`.
    public var operation: String

    public init(kind: Kind, errno: Int32 = 0, operation: String) {
        self.kind = kind
        self.errno = errno
        self.operation = operation
    }

    /// Types a system call failure.
    public init(errno code: Int32, operation: String) {
        self.init(kind: Self.kind(forErrno: code), errno: code, operation: operation)
    }

    /// The transport's reading of an event loop failure: its time-outs and closed waits
    /// keep their kind, a failed system call is typed from its `errno`.
    public init(_ error: EventLoopError) {
        switch error.kind {
        case .timedOut: self.init(kind: .timedOut, operation: error.operation)
        case .closed: self.init(kind: .closed, operation: error.operation)
        case .busy: self.init(kind: .busy, operation: error.operation)
        case .system: self.init(errno: error.errno, operation: error.operation)
        }
    }

    /// The error for the current `errno`.
    static func current(_ operation: String) -> KernelTransportError {
        KernelTransportError(errno: Glibc.errno, operation: operation)
    }

    public static func kind(forErrno code: Int32) -> Kind {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT: return .unsupported
        case EPERM, EACCES: return .unauthorized
        case ECONNREFUSED: return .connectionRefused
        case EHOSTDOWN, EHOSTUNREACH: return .hostDown
        case ETIMEDOUT: return .timedOut
        case ECONNRESET: return .connectionReset
        case ECONNABORTED: return .connectionAborted
        case EBUSY, EADDRINUSE, EALREADY: return .busy
        case ENOTCONN, EPIPE, ESHUTDOWN: return .notConnected
        case ENODEV, EADDRNOTAVAIL: return .noSuchAdapter
        case EMSGSIZE: return .messageTooLong
        default: return .other
        }
    }

    /// The HCI disconnect reason the kernel most likely saw, for errors that
    /// ended a link.
    ///
    /// The kernel does not hand the reason code to L2CAP sockets; it turns it
    /// into an `errno` (Core Vol 1 Part F codes → errno), so the mapping back is
    /// the best that can be learned from the socket.
    public var disconnectReason: HCIStatus? {
        switch errno {
        case ETIMEDOUT: return HCIStatus.connectionTimeout     // Connection Timeout
        case ECONNRESET: return HCIStatus.remoteUserTerminatedConnection    // Remote User Terminated Connection
        case ECONNABORTED: return HCIStatus.connectionTerminatedByLocalHost  // Connection Terminated by Local Host
        case EACCES: return HCIStatus.authenticationFailure        // Authentication Failure
        case EHOSTDOWN: return HCIStatus.connectionFailedToBeEstablished     // Connection Failed to be Established
        default: return nil
        }
    }

    public var description: String {
        if errno != 0 {
            return "\(operation): \(kind) (\(String(cString: strerror(errno))), errno \(errno))"
        }
        return "\(operation): \(kind)"
    }
}
