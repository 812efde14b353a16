import Foundation
import Glibc
import Testing
@testable import MQTTClient
import MQTTTestSupport

/// The test broker's hold on its port (issue 24: "Address already in use" when test support
/// picked a free port and mosquitto bound it later).
@Suite struct MosquittoBrokerPortTests {
    /// A TCP socket on 127.0.0.1:`port` (0: one the kernel picks), listening when asked, or
    /// the errno of the failed bind.
    static func bound(port: Int, listening: Bool) -> Result<(fd: Int32, port: Int), POSIXError> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || listen(fd, 1) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let error = errno
            close(fd)
            return .failure(POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO))
        }
        return .success((fd, Int(UInt16(bigEndian: address.sin_port))))
    }

    /// Connects to a listener of its own with the kernel's choice of local port pinned to
    /// `port`: the connect's errno (0 when it got the port), or nil when the kernel cannot pin.
    static func connectFrom(port: Int) -> Int32? {
        guard case .success(let target) = bound(port: 0, listening: true) else { return nil }
        defer { close(target.fd) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let ipLocalPortRange: Int32 = 51
        var range = UInt32(port) | UInt32(port) << 16
        guard setsockopt(fd, Int32(IPPROTO_IP), ipLocalPortRange, &range, socklen_t(MemoryLayout<UInt32>.size)) == 0 else {
            return nil
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(target.port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0 ? 0 : errno
    }

    @Test("a port another socket took before the broker started: mosquitto says so, and the broker listens on a fresh one")
    func takenPortMovesToAFreshOne() async throws {
        let taker = try Self.bound(port: 0, listening: true).get()
        defer { close(taker.fd) }
        let broker = try MosquittoBroker.start(options: .init(firstPort: taker.port))
        #expect(broker.refusedPorts == [taker.port])
        #expect(broker.port != taker.port)
        #expect(broker.log.contains("Address already in use"), "\(broker.log)")
        #expect(broker.log.contains("Opening ipv4 listen socket on port \(broker.port)."), "\(broker.log)")
        let subscriber = try client(port: broker.port, id: "moved")
        try subscriber.subscribe("moved/#")
        #expect(await subscribed(subscriber, "moved/#", within: .seconds(120)))
        await subscriber.close()
    }

    @Test("the broker's port stays its own while it is down: a bind or an outgoing connection cannot take it, and restart listens there again")
    func portHeldAcrossRestart() async throws {
        let broker = try MosquittoBroker.start()
        #expect(broker.refusedPorts.isEmpty)
        if case .success(let other) = Self.bound(port: broker.port, listening: false) {
            close(other.fd)
            Issue.record("another socket bound the running broker's port \(broker.port)")
        }
        broker.stop()
        switch Self.bound(port: broker.port, listening: true) {
        case .success(let other):
            close(other.fd)
            Issue.record("another socket took port \(broker.port) while the broker was down")
        case .failure(let error):
            #expect(error.code == .EADDRINUSE)
        }
        // An outgoing connection's local port is the other way a port gets taken. Linux
        // 6.3's IP_LOCAL_PORT_RANGE pins the kernel's choice to the broker's port; older
        // kernels lack it, and then only the bind above is checked.
        if let refused = Self.connectFrom(port: broker.port) {
            #expect(refused == EADDRNOTAVAIL, "an outgoing connection took port \(broker.port) while the broker was down")
        }
        try broker.restart()
        let subscriber = try client(port: broker.port, id: "again")
        try subscriber.subscribe("again/#")
        #expect(await subscribed(subscriber, "again/#", within: .seconds(120)))
        await subscriber.close()
    }
}
