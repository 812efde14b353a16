import CBlueZ
import Glibc
import HCI

/// A pairing agent on the kernel's management channel (`HCI_CHANNEL_CONTROL`)
/// for hosts without bluetoothd: it answers the kernel's User Confirmation
/// Requests, which is what lets ``L2CAPATTSocket/raiseSecurity(to:timeout:)``
/// finish. Without any agent, Just Works pairing waits for a confirmation that
/// never comes and SMP times out after 30 s.
///
/// Accepts Just Works (the kernel's "auto-accept" hint) only; a numeric
/// comparison is refused, since nobody is there to compare. Needs
/// CAP_NET_ADMIN. Do not run it beside bluetoothd, which is the agent there.
public final class KernelPairingAgent: Sendable {
    /// One confirmation the agent answered.
    public struct Confirmation: Hashable, Sendable {
        public var adapterIndex: UInt16
        public var address: BluetoothAddress
        public var accepted: Bool
    }

    static let userConfirmRequestEvent: UInt16 = 0x000F
    static let userConfirmReply: UInt16 = 0x001C
    static let userConfirmNegativeReply: UInt16 = 0x001D

    let socket: KernelSocket
    private let answered: AsyncStream<Confirmation>
    private let answeredSink: AsyncStream<Confirmation>.Continuation

    public init(loop: KernelEventLoop? = nil) throws {
        let loop = try loop ?? KernelEventLoop.shared()
        let fd = Glibc.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                              BTPROTO_HCI)
        guard fd >= 0 else { throw KernelTransportError.current("socket(AF_BLUETOOTH, HCI control)") }
        socket = try KernelSocket(adopting: fd, loop: loop)
        do {
            try socket.withDescriptor("bind(control)") { fd in
                var address = sockaddr_hci()
                address.hci_family = sa_family_t(AF_BLUETOOTH)
                address.hci_dev = UInt16(HCI_DEV_NONE)
                address.hci_channel = UInt16(HCI_CHANNEL_CONTROL)
                let bound = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
                    }
                }
                guard bound == 0 else { throw KernelTransportError.current("bind(HCI_CHANNEL_CONTROL)") }
            }
        } catch {
            socket.close()
            throw error
        }
        (answered, answeredSink) = AsyncStream.makeStream(of: Confirmation.self, bufferingPolicy: .bufferingNewest(64))
        let socket = self.socket
        let sink = answeredSink
        Task {
            while let packet = try? await Self.read(socket) {
                guard let confirmation = try? await Self.answer(packet, on: socket) else { continue }
                sink.yield(confirmation)
            }
            sink.finish()
        }
    }

    deinit { close() }

    /// The confirmations answered so far and from now on.
    public var confirmations: AsyncStream<Confirmation> { answered }

    /// Stops answering.
    public func close() {
        socket.close()
        answeredSink.finish()
    }

    private static func read(_ socket: KernelSocket) async throws -> [UInt8] {
        try await socket.retrying("mgmt event", direction: .read) { fd -> [UInt8]? in
            let capacity = 1024
            var length = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                length = Glibc.read(fd, buffer.baseAddress, capacity)
                count = max(0, length)
            }
            if length >= 0 { return bytes }
            if errno == EAGAIN || errno == EINTR { return nil }
            throw KernelTransportError.current("mgmt event")
        }
    }

    /// Answers a User Confirmation Request: header (event, index, length, all
    /// little-endian), then address (6), address type (1), confirm hint (1),
    /// value (4). Other events, and short or inconsistent packets, are ignored.
    static func answer(_ packet: [UInt8], on socket: KernelSocket) async throws -> Confirmation? {
        guard let request = parse(packet) else { return nil }
        let accepted = request.justWorks
        let opcode = accepted ? userConfirmReply : userConfirmNegativeReply
        let reply = header(opcode, index: request.index, length: 7) + request.addressInfo
        _ = try await socket.retrying("mgmt reply", direction: .write) { fd -> Bool? in
            let written = reply.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written >= 0 { return true }
            if errno == EAGAIN || errno == EINTR { return nil }
            throw KernelTransportError.current("mgmt reply")
        }
        return Confirmation(adapterIndex: request.index, address: request.address, accepted: accepted)
    }

    struct Request: Hashable {
        var index: UInt16
        var address: BluetoothAddress
        var addressInfo: [UInt8]
        var justWorks: Bool
    }

    static func parse(_ packet: [UInt8]) -> Request? {
        guard packet.count >= 6 else { return nil }
        let code = UInt16(packet[0]) | UInt16(packet[1]) << 8
        let index = UInt16(packet[2]) | UInt16(packet[3]) << 8
        let length = Int(UInt16(packet[4]) | UInt16(packet[5]) << 8)
        guard code == userConfirmRequestEvent, length >= 12, packet.count - 6 >= length,
              let address = BluetoothAddress(littleEndian: packet[6..<12]) else { return nil }
        return Request(index: index, address: address, addressInfo: Array(packet[6..<13]), justWorks: packet[13] == 1)
    }

    static func header(_ opcode: UInt16, index: UInt16, length: UInt16) -> [UInt8] {
        [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8), UInt8(length & 0xFF), UInt8(length >> 8)]
    }
}
