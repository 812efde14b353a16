import EventLoop
import Synchronization

/// Watches the kernel's adapters come and go and power up and down: the stack-internal
/// Device event (`EVT_STACK_INTERNAL`, `EVT_SI_DEVICE`) that the kernel sends to raw HCI
/// sockets bound to no adapter whenever an adapter is registered, unregistered, brought
/// up or taken down. rfkill and unplugging arrive as down and unregistered.
///
/// One socket serves every listener; each listener gets its own bounded stream.
public final class KernelAdapterMonitor: Sendable {
    /// What happened to an adapter.
    public struct Event: Hashable, Sendable {
        public enum Kind: UInt16, Sendable {
            case registered = 1    // HCI_DEV_REG
            case unregistered = 2  // HCI_DEV_UNREG
            case up = 3            // HCI_DEV_UP
            case down = 4          // HCI_DEV_DOWN
        }
        public var kind: Kind
        public var adapterIndex: UInt16
    }

    /// `EVT_STACK_INTERNAL`, and its Device sub-event.
    static let stackInternalEvent: UInt8 = 0xFD
    static let deviceSubevent: UInt16 = 0x0001
    /// The adapter index meaning "none": the socket hears every adapter.
    static let noAdapter: UInt16 = 0xFFFF

    private struct State {
        var listeners: [Int: AsyncStream<Event>.Continuation] = [:]
        var next = 0
    }

    private let socket: HCISocket
    private let state = Mutex(State())

    public init(loop: KernelEventLoop? = nil) throws {
        socket = try HCISocket(adapterIndex: Self.noAdapter, events: [Self.stackInternalEvent], loop: loop)
        let socket = self.socket
        Task { [weak self] in
            while let packet = try? await socket.nextPacket() {
                guard let self else { break }
                if let event = Self.decode(packet) { self.publish(event) }
            }
            self?.finishAll()
        }
    }

    deinit { socket.close() }

    /// The Device event in a raw packet: 04 FD len, then the sub-event type (2 bytes),
    /// then `evt_si_device` { event, dev_id } (2 bytes each, little-endian).
    package static func decode(_ packet: [UInt8]) -> Event? {
        guard packet.count >= 9, packet[0] == 0x04, packet[1] == stackInternalEvent, Int(packet[2]) == packet.count - 3
        else { return nil }
        let subevent = UInt16(packet[3]) | UInt16(packet[4]) << 8
        guard subevent == deviceSubevent, let kind = Event.Kind(rawValue: UInt16(packet[5]) | UInt16(packet[6]) << 8)
        else { return nil }
        return Event(kind: kind, adapterIndex: UInt16(packet[7]) | UInt16(packet[8]) << 8)
    }

    /// Every event from now on. A listener that stops reading keeps the newest 64: an
    /// adapter's state is what its latest event says.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { s -> Int in
            defer { s.next += 1 }
            s.listeners[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    private func publish(_ event: Event) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener.yield(event) }
    }

    private func finishAll() {
        for listener in state.withLock({ s -> [AsyncStream<Event>.Continuation] in
            defer { s.listeners = [:] }
            return Array(s.listeners.values)
        }) { listener.finish() }
    }

    public func close() { socket.close() }
}
