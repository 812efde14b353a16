import CBlueZ
import EventLoop
import Glibc
import HCI

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

    /// Writes one HCI command packet: H4 indicator 0x01, then the command.
    public func send(_ command: HCICommandPacket) async throws {
        guard command.parameters.count <= 255 else {
            throw KernelTransportError(kind: .messageTooLong, errno: EMSGSIZE, operation: "HCI command")
        }
        let packet: [UInt8] = [UInt8(HCI_COMMAND_PKT)] + command.encoded
        _ = try await socket.retrying("HCI command", direction: .write) { fd -> Bool? in
            let written = packet.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written >= 0 { return true }
            if errno == EAGAIN || errno == EINTR { return nil }
            throw KernelTransportError.current("HCI command")
        }
    }

    /// Reads the next packet that passes the filter, undecoded (H4 indicator first):
    /// for events the shared decoder does not know, such as the kernel's own.
    public func nextPacket(timeout: Duration? = nil) async throws -> [UInt8] {
        try await socket.retrying("HCI event", direction: .read, timeout: timeout) { fd -> [UInt8]? in
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
    }

    /// Reads the next event that passes the filter. Packets the shared HCI
    /// decoder rejects are skipped, so a misbehaving controller cannot stop
    /// the reader.
    public func nextEvent(timeout: Duration? = nil) async throws -> HCIEvent {
        while true {
            let packet = try await nextPacket(timeout: timeout)
            guard packet.first == UInt8(HCI_EVENT_PKT), let event = try? HCIEvent(decoding: packet.dropFirst()) else { continue }
            return event
        }
    }

    /// Sends a command and waits for its Command Complete (or a failing
    /// Command Status), returning the return parameters after the status byte.
    ///
    /// The socket must have been opened with Command Complete and Command
    /// Status among its events. Completions of other commands are skipped.
    public func command(_ opcode: HCIOpcode, parameters: [UInt8] = [], timeout: Duration = .seconds(2)) async throws -> ArraySlice<UInt8> {
        try await send(HCICommandPacket(opcode: opcode, parameters: parameters[...]))
        let deadline = KernelEventLoop.now() &+ KernelEventLoop.nanoseconds(timeout)
        while true {
            let now = KernelEventLoop.now()
            guard now < deadline else { throw KernelTransportError(kind: .timedOut, operation: "HCI command \(opcode)") }
            switch try await nextEvent(timeout: .nanoseconds(Int64(deadline - now))) {
            case .commandComplete(let complete) where complete.opcode == opcode:
                let status = complete.returnParameters.first.map { HCIStatus($0) } ?? .success
                guard status.isSuccess else { throw HCICommandError(opcode: opcode, status: status) }
                return complete.returnParameters.dropFirst()
            case .commandStatus(let status) where status.opcode == opcode:
                guard status.status.isSuccess else { throw HCICommandError(opcode: opcode, status: status.status) }
                return []
            default:
                continue
            }
        }
    }

    public func close() { socket.close() }
}
