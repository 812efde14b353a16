import Glibc

/// A failure of a ``KernelEventLoop`` call: a wait that timed out or whose descriptor
/// left the loop, a second waiter, or a system call that failed with an `errno`.
///
/// The loop knows nothing of what its descriptors carry; a transport above it turns
/// these into its own errors, with its own operation names.
public struct EventLoopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, in terms a caller can act on.
    public enum Kind: Equatable, Sendable {
        /// The wait's timeout passed first.
        case timedOut
        /// The descriptor was deregistered, or the loop stopped, while the wait was pending.
        case closed
        /// Another task already waits on the descriptor in that direction.
        case busy
        /// A system call failed; ``EventLoopError/errno`` says why.
        case system
    }

    public var kind: Kind
    /// The `errno` of a failed system call; 0 for the other kinds.
    public var errno: Int32
    /// The operation that failed, such as `"wait"` or `"epoll_ctl"`.
    public var operation: String

    public init(kind: Kind, errno: Int32 = 0, operation: String) {
        self.kind = kind
        self.errno = errno
        self.operation = operation
    }

    /// The error for the current `errno`, after a failed system call.
    public static func current(_ operation: String) -> EventLoopError {
        EventLoopError(kind: .system, errno: Glibc.errno, operation: operation)
    }

    public var description: String {
        if errno != 0 {
            return "\(operation): \(kind) (\(String(cString: strerror(errno))), errno \(errno))"
        }
        return "\(operation): \(kind)"
    }
}
