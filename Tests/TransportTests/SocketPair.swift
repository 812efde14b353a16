#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Non-blocking SEQPACKET socketpairs, standing in for Bluetooth sockets in the socket tests.
enum SocketPair {
    struct Failure: Error {
        var errno: Int32
    }

    static func make() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw Failure(errno: errno) }
        return (fds[0], fds[1])
    }
}
