import CBlueZ
import EventLoop
import Glibc
import HCI

/// A listening kernel L2CAP socket on the LE ATT channel: the peripheral side.
/// Each accepted socket carries the central's address and address type.
public final class L2CAPATTListener: Sendable {
    /// The local address the listener is bound to.
    public let local: L2CAPSocketAddress
    let socket: KernelSocket

    /// Listens on the ATT channel of the adapter with `address` (`.any`: every adapter).
    public init(address: BluetoothAddress = .any, addressType: LEAddressType = .public,
                backlog: Int32 = 16, loop: KernelEventLoop? = nil) throws {
        let loop = try loop ?? KernelEventLoop.shared()
        socket = try KernelSocket(adopting: L2CAPATTSocket.openBound(to: address, type: addressType), loop: loop)
        local = L2CAPSocketAddress(address: address, addressType: addressType)
        try socket.withDescriptor("listen") { fd in
            guard Glibc.listen(fd, backlog) == 0 else { throw KernelTransportError.current("listen") }
        }
    }

    /// Waits for a central to connect.
    public func accept() async throws -> L2CAPATTSocket {
        let loop = socket.loop
        let fd = try await socket.retrying("accept", direction: .read) { fd -> Int32? in
            let accepted = Glibc.accept(fd, nil, nil)
            if accepted >= 0 {
                // accept4 needs _GNU_SOURCE, which Glibc's module does not export.
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
                return accepted
            }
            switch errno {
            case EAGAIN, EINTR, ECONNABORTED: return nil
            default: throw KernelTransportError.current("accept")
            }
        }
        let connection = try KernelSocket(adopting: fd, loop: loop)
        let names = try L2CAPATTSocket.names(of: connection)
        guard let peer = names.peer else {
            connection.close()
            throw KernelTransportError(kind: .notConnected, errno: ENOTCONN, operation: "getpeername")
        }
        return L2CAPATTSocket(socket: connection, local: names.local ?? local, peer: peer)
    }

    /// Stops listening; a pending ``accept()`` fails with ``KernelTransportError/Kind/closed``.
    public func close() { socket.close() }
}
