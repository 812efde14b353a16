import CBlueZ
import Glibc

/// A raw HCI socket (`BTPROTO_HCI`, `HCI_CHANNEL_RAW`) bound to one adapter,
/// filtered to the events it asks for. Sends commands and reads events
/// through the shared ``KernelEventLoop``.
///
/// The kernel keeps managing the adapter (through mgmt) while raw sockets are
/// open; commands sent here go to the controller beside the kernel's own.
public final class HCISocket: Sendable {
    public let adapterIndex: UInt16
    let socket: KernelSocket

    /// Opens a raw HCI socket on `hci<adapterIndex>` that receives `events`.
    /// Sending commands needs CAP_NET_RAW (``KernelTransportError/Kind/unauthorized``).
    public init(adapterIndex: UInt16, events: [UInt8], loop: KernelEventLoop? = nil) throws {
        let loop = try loop ?? KernelEventLoop.shared()
        let fd = Glibc.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                              BTPROTO_HCI)
        guard fd >= 0 else { throw KernelTransportError.current("socket(AF_BLUETOOTH, HCI)") }
        socket = try KernelSocket(adopting: fd, loop: loop)
        self.adapterIndex = adapterIndex
        do {
            try socket.withDescriptor("bind(hci)") { fd in
                var address = sockaddr_hci()
                address.hci_family = sa_family_t(AF_BLUETOOTH)
                address.hci_dev = adapterIndex
                address.hci_channel = UInt16(HCI_CHANNEL_RAW)
                let bound = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
                    }
                }
                guard bound == 0 else { throw KernelTransportError.current("bind(hci\(adapterIndex))") }
            }
            var filter = hci_filter()
            hci_filter_clear(&filter)
            hci_filter_set_ptype(Int32(HCI_EVENT_PKT), &filter)
            for event in events { hci_filter_set_event(Int32(event), &filter) }
            try socket.setOption(level: SOL_HCI, name: HCI_FILTER, filter, operation: "setsockopt(HCI_FILTER)")
        } catch {
            socket.close()
            throw error
        }
    }

    /// Writes one HCI command packet: `01 opcode(LE) length parameters`.
    public func send(opcode: UInt16, parameters: [UInt8]) async throws {
        guard parameters.count <= 255 else {
            throw KernelTransportError(kind: .messageTooLong, errno: EMSGSIZE, operation: "HCI command")
        }
        let packet: [UInt8] = [UInt8(HCI_COMMAND_PKT), UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
        _ = try await socket.retrying("HCI command", direction: .write) { fd -> Bool? in
            let written = packet.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written >= 0 { return true }
            if errno == EAGAIN || errno == EINTR { return nil }
            throw KernelTransportError.current("HCI command")
        }
    }

    /// Reads the next event that passes the filter; malformed packets are skipped.
    public func nextEvent(timeout: Duration? = nil) async throws -> HCIEventPacket {
        while true {
            let packet = try await socket.retrying("HCI event", direction: .read, timeout: timeout) { fd -> [UInt8]? in
                let capacity = 260
                var length = 0
                let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                    length = Glibc.read(fd, buffer.baseAddress, capacity)
                    count = max(0, length)
                }
                if length >= 0 { return bytes }
                if errno == EAGAIN || errno == EINTR { return nil }
                throw KernelTransportError.current("HCI event")
            }
            if let event = HCIEventPacket(packet: packet) { return event }
        }
    }

    /// Sends a command and waits for its Command Complete (or a failing
    /// Command Status), returning the return parameters after the status byte.
    ///
    /// The socket must have been opened with Command Complete and Command
    /// Status in its events. Completions of other commands are skipped.
    public func command(opcode: UInt16, parameters: [UInt8] = [], timeout: Duration = .seconds(2)) async throws -> [UInt8] {
        try await send(opcode: opcode, parameters: parameters)
        let deadline = KernelEventLoop.now() &+ KernelEventLoop.nanoseconds(timeout)
        while true {
            let now = KernelEventLoop.now()
            guard now < deadline else { throw KernelTransportError(kind: .timedOut, operation: "HCI command 0x\(String(opcode, radix: 16))") }
            let event = try await nextEvent(timeout: .nanoseconds(Int64(deadline - now)))
            let p = event.parameters
            switch event.code {
            case HCIEventPacket.commandComplete where p.count >= 4 && UInt16(p[1]) | UInt16(p[2]) << 8 == opcode:
                guard p[3] == 0 else { throw HCICommandError(opcode: opcode, status: p[3]) }
                return Array(p[4...])
            case HCIEventPacket.commandStatus where p.count >= 4 && UInt16(p[2]) | UInt16(p[3]) << 8 == opcode:
                guard p[0] == 0 else { throw HCICommandError(opcode: opcode, status: p[0]) }
                return []
            default:
                continue
            }
        }
    }

    public func close() { socket.close() }
}
