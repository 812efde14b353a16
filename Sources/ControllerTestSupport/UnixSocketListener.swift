#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A listening UNIX stream socket in a directory of its own under the temporary directory:
/// where a scripted controller waits for the host under test (`.unix(path:)`,
/// `--transport unix:PATH`).
///
/// The directory comes from mkdtemp, which creates it or fails, so no other listener, test
/// or run can hold the same path, and a stale socket file from an earlier run cannot be in
/// the way.
public struct UnixSocketListener: Sendable {
    public let path: String
    public let descriptor: Int32

    /// Binds and listens, or traps: a test whose controller cannot listen has nothing to run.
    /// - Parameters:
    ///   - prefix: the start of the directory's name, to tell test runs apart in /tmp.
    ///   - backlog: connections that may wait to be accepted.
    public init(prefix: String, backlog: Int32 = 1) {
        var template = Array((NSTemporaryDirectory() + "\(prefix)-\(getpid())-XXXXXX").utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let made = mkdtemp(buffer.baseAddress!) else { return nil }
            return String(cString: made)
        }
        guard let directory else { preconditionFailure("mkdtemp \(prefix): errno \(errno)") }
        let path = directory + "/h4.sock"
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // sun_path holds 108 bytes with its NUL; NSTemporaryDirectory paths fit well within.
        let capacity = MemoryLayout.size(ofValue: address.sun_path) - 1
        precondition(path.utf8.count <= capacity, "socket path too long: \(path)")
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        precondition(descriptor >= 0 && bound == 0 && listen(descriptor, backlog) == 0, "cannot listen on \(path): errno \(errno)")
        self.path = path
        self.descriptor = descriptor
    }

    /// The next connection, blocking until one comes; -1 once the listener is shut down.
    public func accept() -> Int32 {
        Glibc.accept(descriptor, nil, nil)
    }

    /// Ends a blocked ``accept()``, closes the socket and removes its path and directory.
    public func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
        unlink(path)
        rmdir((path as NSString).deletingLastPathComponent)
    }
}
