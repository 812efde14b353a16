import CBlueZ
import EventLoop
import Glibc
import HCI

/// A connected kernel L2CAP socket on the LE ATT fixed channel (CID 4):
/// one datagram is one ATT PDU.
///
/// Reads and writes never block a thread: when the kernel would block, the
/// task waits on the shared ``KernelEventLoop``.
public final class L2CAPATTSocket: Sendable {
    /// This side of the link.
    public let local: L2CAPSocketAddress
    /// The peer, as the kernel knows it.
    public let peer: L2CAPSocketAddress
    /// The HCI connection handle of the link, from `L2CAP_CONNINFO`; nil
    /// when the kernel would not say.
    public let connectionHandle: UInt16?
    /// When this socket was connected or accepted (loop clock, nanoseconds).
    public let createdAt: UInt64
    /// The receive buffer for one datagram: the channel's receive MTU, read
    /// once, since the kernel drops anything larger before it reaches us.
    private let receiveCapacity: Int
    let socket: KernelSocket

    init(socket: KernelSocket, local: L2CAPSocketAddress, peer: L2CAPSocketAddress) {
        self.socket = socket
        self.local = local
        self.peer = peer
        createdAt = KernelEventLoop.now()
        let receiveMTU = (try? socket.getOption(level: SOL_L2CAP, name: L2CAP_OPTIONS, as: l2cap_options.self,
                                                operation: "getsockopt(L2CAP_OPTIONS)"))?.imtu
        receiveCapacity = max(Int(receiveMTU ?? 0), 1024)
        connectionHandle = (try? socket.getOption(level: SOL_L2CAP, name: L2CAP_CONNINFO, as: l2cap_conninfo.self,
                                                   operation: "getsockopt(L2CAP_CONNINFO)"))?.hci_handle
    }

    /// Opens a non-blocking L2CAP sequenced-packet socket bound to the ATT
    /// channel of `local` (`.any`: the kernel picks the newest powered adapter).
    static func openBound(to local: BluetoothAddress, type: LEAddressType) throws -> Int32 {
        let fd = Glibc.socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                              BTPROTO_L2CAP)
        guard fd >= 0 else { throw KernelTransportError.current("socket(AF_BLUETOOTH, L2CAP)") }
        let bound = L2CAPSocketAddress(address: local, addressType: type).withSockaddr { Glibc.bind(fd, $0, $1) }
        guard bound == 0 else {
            let error = KernelTransportError.current("bind")
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// Connects to an LE peer's ATT channel as a central.
    ///
    /// The kernel waits for the peer to advertise connectably before it sends
    /// LE Create Connection, so nothing advertising means ``KernelTransportError/Kind/timedOut``
    /// once `timeout` passes. Cancelling the task abandons the attempt and
    /// closes the socket, which makes the kernel cancel the connection.
    ///
    /// - Parameters:
    ///   - local: the adapter to use; `.any` lets the kernel choose.
    public static func connect(to address: BluetoothAddress, type: LEAddressType,
                               from local: BluetoothAddress = .any, timeout: Duration,
                               loop: KernelEventLoop? = nil) async throws -> L2CAPATTSocket {
        let loop = try loop ?? KernelEventLoop.shared()
        let socket = try KernelSocket(adopting: openBound(to: local, type: .public), loop: loop)
        let target = L2CAPSocketAddress(address: address, addressType: type)
        do {
            let started = try socket.withDescriptor("connect") { fd -> Bool in
                if target.withSockaddr({ Glibc.connect(fd, $0, $1) }) == 0 { return true }
                guard errno == EINPROGRESS || errno == EAGAIN else { throw KernelTransportError.current("connect") }
                return false
            }
            if !started {
                _ = try await socket.retrying("connect", direction: .write, timeout: timeout) { fd -> Bool? in
                    let error = KernelSocket.pendingError(fd)
                    if error != 0 { throw KernelTransportError(errno: error, operation: "connect") }
                    // POLLOUT only once the link and channel are up; a wake-up
                    // while still connecting just means "wait again".
                    let events = KernelSocket.pollNow(fd, POLLOUT | POLLERR | POLLHUP)
                    if events & (POLLERR | POLLHUP) != 0 {
                        let error = KernelSocket.pendingError(fd)
                        throw KernelTransportError(errno: error != 0 ? error : ECONNRESET, operation: "connect")
                    }
                    return events & POLLOUT != 0 ? true : nil
                }
            }
            try Task.checkCancellation()
            let names = try Self.names(of: socket)
            return L2CAPATTSocket(socket: socket, local: names.local ?? L2CAPSocketAddress(address: local, addressType: .public),
                                  peer: names.peer ?? target)
        } catch {
            socket.close()
            throw error
        }
    }

    static func names(of socket: KernelSocket) throws -> (local: L2CAPSocketAddress?, peer: L2CAPSocketAddress?) {
        try socket.withDescriptor("getsockname") { fd in
            var raw = sockaddr_l2()
            var length = socklen_t(MemoryLayout<sockaddr_l2>.size)
            let local: L2CAPSocketAddress? = withUnsafeMutablePointer(to: &raw) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            } == 0 ? L2CAPSocketAddress(raw) : nil
            raw = sockaddr_l2()
            length = socklen_t(MemoryLayout<sockaddr_l2>.size)
            let peer: L2CAPSocketAddress? = withUnsafeMutablePointer(to: &raw) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            } == 0 ? L2CAPSocketAddress(raw) : nil
            return (local, peer)
        }
    }

    /// The channel's MTUs (`BT_RCVMTU`/`BT_SNDMTU`, or `L2CAP_OPTIONS` on
    /// kernels that refuse those for the fixed channel).
    public func mtu() throws -> L2CAPChannelMTU {
        if let receive = try? socket.getOption(level: SOL_BLUETOOTH, name: BT_RCVMTU, as: UInt16.self, operation: "getsockopt(BT_RCVMTU)"),
           let send = try? socket.getOption(level: SOL_BLUETOOTH, name: BT_SNDMTU, as: UInt16.self, operation: "getsockopt(BT_SNDMTU)") {
            return L2CAPChannelMTU(receive: Int(receive), send: Int(send))
        }
        let options = try socket.getOption(level: SOL_L2CAP, name: L2CAP_OPTIONS, as: l2cap_options.self,
                                           operation: "getsockopt(L2CAP_OPTIONS)")
        return L2CAPChannelMTU(receive: Int(options.imtu), send: Int(options.omtu))
    }

    /// The link's current security level (`BT_SECURITY`).
    public func securityLevel() throws -> BluetoothSecurityLevel {
        let value = try socket.getOption(level: SOL_BLUETOOTH, name: BT_SECURITY, as: bt_security.self,
                                         operation: "getsockopt(BT_SECURITY)")
        return BluetoothSecurityLevel(rawValue: value.level) ?? .low
    }

    /// Asks the kernel for at least `level` and returns at once; on a
    /// connected LE link the kernel starts pairing or encryption, and sends
    /// fail with ``KernelTransportError/Kind/notConnected`` until it is done.
    /// Prefer ``raiseSecurity(to:timeout:)``, which waits.
    ///
    /// Asking an ATT socket for a level the link already has is a no-op here:
    /// the kernel would answer `EINVAL`.
    public func setSecurityLevel(_ level: BluetoothSecurityLevel) throws {
        if try securityLevel() >= level { return }
        var value = bt_security()
        value.level = level.rawValue
        try socket.setOption(level: SOL_BLUETOOTH, name: BT_SECURITY, value, operation: "setsockopt(BT_SECURITY)")
    }

    /// Raises the link's security to at least `level` and waits until the
    /// kernel reports the channel usable again: the hook behind the GATT
    /// client's one-time retry after an Insufficient Authentication or
    /// Encryption error. Pairing failures surface as the kernel's error
    /// (usually ``KernelTransportError/Kind/unauthorized``).
    public func raiseSecurity(to level: BluetoothSecurityLevel, timeout: Duration = .seconds(30)) async throws {
        try setSecurityLevel(level)
        _ = try await socket.retrying("raise security", direction: .write, timeout: timeout) { fd -> Bool? in
            let events = KernelSocket.pollNow(fd, POLLOUT | POLLERR | POLLHUP)
            if events & (POLLERR | POLLHUP) != 0 {
                let error = KernelSocket.pendingError(fd)
                throw KernelTransportError(errno: error != 0 ? error : ECONNRESET, operation: "raise security")
            }
            return events & POLLOUT != 0 ? true : nil
        }
        let reached = try securityLevel()
        guard reached >= level else {
            throw KernelTransportError(kind: .unauthorized, operation: "raise security to \(level) (link is \(reached))")
        }
    }

    /// Sets the kernel's receive buffer for this socket, in bytes.
    ///
    /// Notifications are not flow-controlled: when a peer sends faster than
    /// the process reads, the kernel drops what does not fit in this buffer.
    /// A gateway with bursty sensors raises it. Above `net.core.rmem_max` this
    /// needs CAP_NET_ADMIN (`SO_RCVBUFFORCE`); without it the kernel caps the size.
    public func setReceiveBufferSize(_ bytes: Int) throws {
        let size = Int32(clamping: bytes)
        do {
            try socket.setOption(level: SOL_SOCKET, name: SO_RCVBUFFORCE, size, operation: "setsockopt(SO_RCVBUFFORCE)")
        } catch let error as KernelTransportError where error.kind == .unauthorized {
            try socket.setOption(level: SOL_SOCKET, name: SO_RCVBUF, size, operation: "setsockopt(SO_RCVBUF)")
        }
    }

    /// The kernel's receive buffer for this socket, in bytes (as the kernel
    /// reports it: twice what was asked, to cover its bookkeeping).
    public func receiveBufferSize() throws -> Int {
        Int(try socket.getOption(level: SOL_SOCKET, name: SO_RCVBUF, as: Int32.self, operation: "getsockopt(SO_RCVBUF)"))
    }

    /// Sends one ATT PDU as one datagram.
    public func send(_ pdu: [UInt8]) async throws {
        _ = try await socket.retrying("send", direction: .write) { fd -> Bool? in
            let sent = pdu.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
            if sent >= 0 { return true }
            switch errno {
            case EAGAIN, EINTR: return nil
            default: throw KernelTransportError.current("send")
            }
        }
    }

    /// Sends one ATT PDU now if the kernel has room for it; false when it would block
    /// (the caller queues it and waits with ``send(_:)``).
    public func trySend(_ pdu: [UInt8]) throws -> Bool { try trySend(pdu[...]) }

    /// The same, from a slice of a larger buffer, which the kernel copies from in place.
    public func trySend(_ pdu: ArraySlice<UInt8>) throws -> Bool {
        try socket.withDescriptor("send") { fd -> Bool in
            let sent = pdu.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
            if sent >= 0 { return true }
            switch errno {
            case EAGAIN, EINTR: return false
            default: throw KernelTransportError.current("send")
            }
        }
    }

    /// Receives every PDU the kernel holds for this socket, up to `maximum`, waiting
    /// for the first: one wake-up of the event loop carries a burst. What is not asked
    /// for stays in the kernel's receive buffer. Throws as ``receive(timeout:)``; PDUs
    /// read before a hang-up are returned first, and the next call throws.
    public func receiveBatch(maximum: Int) async throws -> [[UInt8]] {
        let capacity = receiveCapacity
        return try await socket.retrying("receive", direction: .read) { fd -> [[UInt8]]? in
            var batch: [[UInt8]] = []
            while batch.count < maximum {
                var truncatedLength = 0
                let pdu = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                    truncatedLength = Glibc.recv(fd, buffer.baseAddress, capacity, Int32(MSG_DONTWAIT) | Int32(MSG_TRUNC))
                    count = max(0, min(truncatedLength, capacity))
                }
                if truncatedLength > capacity {
                    if !batch.isEmpty { return batch }
                    throw KernelTransportError(kind: .messageTooLong, errno: EMSGSIZE, operation: "receive")
                }
                if truncatedLength > 0 {
                    batch.append(pdu)
                    continue
                }
                if truncatedLength == 0 {
                    if KernelSocket.pollNow(fd, POLLIN) & (POLLHUP | KernelSocket.pollReadHangUp | POLLERR) != 0 {
                        if !batch.isEmpty { return batch }
                        let error = KernelSocket.pendingError(fd)
                        throw KernelTransportError(errno: error != 0 ? error : ECONNRESET, operation: "receive")
                    }
                    batch.append(pdu)
                    continue
                }
                switch errno {
                case EAGAIN, EINTR: return batch.isEmpty ? nil : batch
                default:
                    if !batch.isEmpty { return batch }
                    throw KernelTransportError.current("receive")
                }
            }
            return batch
        }
    }

    /// Receives the next ATT PDU. When the link goes down this throws the
    /// kernel's error for it (``KernelTransportError/disconnectReason`` says why).
    ///
    /// - Parameter timeout: how long to wait for a PDU; ``KernelTransportError/Kind/timedOut``
    ///   after that, with the socket still usable.
    public func receive(timeout: Duration? = nil) async throws -> [UInt8] {
        let capacity = receiveCapacity
        return try await socket.retrying("receive", direction: .read, timeout: timeout) { fd -> [UInt8]? in
            var truncatedLength = 0
            let pdu = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                truncatedLength = Glibc.recv(fd, buffer.baseAddress, capacity, Int32(MSG_DONTWAIT) | Int32(MSG_TRUNC))
                count = max(0, min(truncatedLength, capacity))
            }
            if truncatedLength > capacity {
                throw KernelTransportError(kind: .messageTooLong, errno: EMSGSIZE, operation: "receive")
            }
            if truncatedLength > 0 { return pdu }
            if truncatedLength == 0 {
                // An empty L2CAP frame and end-of-stream both read as 0 bytes;
                // only the hang-up says the link is gone.
                if KernelSocket.pollNow(fd, POLLIN) & (POLLHUP | KernelSocket.pollReadHangUp | POLLERR) != 0 {
                    let error = KernelSocket.pendingError(fd)
                    throw KernelTransportError(errno: error != 0 ? error : ECONNRESET, operation: "receive")
                }
                return pdu
            }
            switch errno {
            case EAGAIN, EINTR: return nil
            default: throw KernelTransportError.current("receive")
            }
        }
    }

    /// The received PDUs as an asynchronous sequence; it ends by throwing the
    /// error that ended the link. There is one reader per socket.
    public var datagrams: Datagrams { Datagrams(socket: self) }

    /// Received ATT PDUs, pulled from the socket on demand.
    public struct Datagrams: AsyncSequence, Sendable {
        public typealias Element = [UInt8]
        let socket: L2CAPATTSocket

        public struct AsyncIterator: AsyncIteratorProtocol {
            let socket: L2CAPATTSocket
            public mutating func next() async throws -> [UInt8]? {
                do {
                    return try await socket.receive()
                } catch let error as KernelTransportError where error.kind == .closed {
                    return nil
                }
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { socket.isClosed }

    /// Closes the socket; pending receives fail with ``KernelTransportError/Kind/closed``.
    ///
    /// Debian's 6.1.192 kernel can corrupt memory when a central closes its
    /// socket after the peer dropped the link while one of its requests was
    /// unanswered; see Scripts/kernel-lab.sh's notes.
    public func close() { socket.close() }
}
