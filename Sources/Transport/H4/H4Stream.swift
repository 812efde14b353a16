#if canImport(Glibc)
import Glibc
#endif
import CBlueZ
import Synchronization

/// A byte stream to a controller, over a file descriptor: TCP, UNIX socket, serial line,
/// or the HCI user channel. Made non-blocking for an event loop: a read returns what has
/// arrived, a write what the stream took.
public final class H4Stream: Sendable {
    /// Why the stream failed, with the system's words for it.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var operation: String
        public var errno: Int32
        public var description: String { "\(operation): \(String(cString: strerror(errno))) (errno \(errno))" }
    }

    /// The descriptor, owned by this object until `close()`.
    public let descriptor: Int32
    public let endpoint: H4Endpoint
    /// True when every read returns exactly one packet (the HCI user channel).
    public let isPacketOriented: Bool
    /// Set by `close()`. After it the descriptor number may belong to someone else, so
    /// nothing may touch it again.
    private let isClosed = Mutex(false)

    private init(descriptor: Int32, endpoint: H4Endpoint, packetOriented: Bool) {
        self.descriptor = descriptor
        self.endpoint = endpoint
        self.isPacketOriented = packetOriented
    }

    /// Opens the endpoint.
    public static func open(_ endpoint: H4Endpoint) throws(Failure) -> H4Stream {
        switch endpoint {
        case .tcp(let host, let port): return H4Stream(descriptor: try connectTCP(host, port), endpoint: endpoint, packetOriented: false)
        case .unix(let path): return H4Stream(descriptor: try connectUNIX(path), endpoint: endpoint, packetOriented: false)
        case .serial(let path, let baud): return H4Stream(descriptor: try openSerial(path, baud), endpoint: endpoint, packetOriented: false)
        case .userChannel(let device): return H4Stream(descriptor: try openUserChannel(device), endpoint: endpoint, packetOriented: true)
        }
    }

    /// What a read that does not wait found.
    public enum ReadOutcome: Sendable, Equatable {
        /// This many bytes were stored at the start of the buffer.
        case bytes(Int)
        /// Nothing is there yet.
        case wouldBlock
        /// The peer closed the stream.
        case endOfStream
    }

    /// Makes reads and writes return at once instead of waiting, for an event loop.
    public func setNonBlocking() throws(Failure) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw Failure(operation: "fcntl O_NONBLOCK", errno: errno)
        }
    }

    /// One read of what has arrived, without waiting (after ``setNonBlocking()``).
    public func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> ReadOutcome {
        guard !isClosed.withLock({ $0 }) else { throw Failure(operation: "read", errno: EBADF) }
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        if count < 0 {
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            throw Failure(operation: "read", errno: errno)
        }
        if count == 0 { return .endOfStream }
        if case .tcp = endpoint {
            // Peers that leave Nagle on (Bumble's TCP server does) hold their next small
            // write until we ACK; Linux delays ACKs by up to 40 ms unless asked each time.
            var one: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        return .bytes(count)
    }

    /// One write of as much of `bytes` as the stream takes now, without waiting (after
    /// ``setNonBlocking()``). Returns how many bytes went; zero when the stream is full.
    public func writeAvailable(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Int {
        guard !isClosed.withLock({ $0 }) else { throw Failure(operation: "write", errno: EBADF) }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        let written = isSocket
            ? Glibc.send(descriptor, base, bytes.count, Int32(MSG_NOSIGNAL))
            : Glibc.write(descriptor, base, bytes.count)
        if written < 0 {
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw Failure(operation: "write", errno: errno)
        }
        return written
    }

    private var isSocket: Bool {
        switch endpoint {
        case .tcp, .unix, .userChannel: true
        case .serial: false
        }
    }

    /// Stops both directions, so a thread blocked reading wakes up; the descriptor stays
    /// valid. Does nothing once the stream is closed.
    public func shutdownBoth() {
        isClosed.withLock { closed in
            if !closed { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Releases the descriptor, once; later calls do nothing. Call after every reader has stopped.
    public func close() {
        isClosed.withLock { closed in
            if !closed { _ = Glibc.close(descriptor) }
            closed = true
        }
    }

    private static func connectTCP(_ host: String, _ port: UInt16) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw Failure(operation: "getaddrinfo \(host)", errno: EHOSTUNREACH) }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            if fd >= 0 {
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                    // HCI packets are small and latency matters: no Nagle delay.
                    var one: Int32 = 1
                    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    return fd
                }
                lastError = errno
                Glibc.close(fd)
            } else {
                lastError = errno
            }
            entry = info.pointee.ai_next
        }
        throw Failure(operation: "connect tcp:\(host):\(port)", errno: lastError)
    }

    private static func connectUNIX(_ path: String) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(operation: "socket AF_UNIX", errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            Glibc.close(fd)
            throw Failure(operation: "connect unix:\(path) (path too long)", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw Failure(operation: "connect unix:\(path)", errno: error)
        }
        return fd
    }

    private static func openSerial(_ path: String, _ baud: Int) throws(Failure) -> Int32 {
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(operation: "open serial:\(path)", errno: errno) }
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw Failure(operation: "tcgetattr \(path)", errno: error)
        }
        // Raw mode: no echo, no line editing, no byte translation, 8 data bits.
        cfmakeraw(&settings)
        let speed = baudConstant(baud)
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw Failure(operation: "tcsetattr \(path)", errno: error)
        }
        return fd
    }

    private static func baudConstant(_ baud: Int) -> speed_t {
        switch baud {
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        case 921_600: speed_t(B921600)
        case 1_000_000: speed_t(B1000000)
        case 2_000_000: speed_t(B2000000)
        case 3_000_000: speed_t(B3000000)
        default: speed_t(B115200)
        }
    }

    private static func openUserChannel(_ device: UInt16) throws(Failure) -> Int32 {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else { throw Failure(operation: "socket AF_BLUETOOTH/BTPROTO_HCI", errno: errno) }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = device
        // HCI_CHANNEL_USER: the kernel's host stack lets go of the controller entirely.
        address.hci_channel = UInt16(HCI_CHANNEL_USER)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw Failure(operation: "bind user:hci\(device) (is the device down and are we privileged?)", errno: error)
        }
        return fd
    }
}
