/// What the host produced for one call, in a caller-owned value reused across calls so
/// the hot path allocates nothing of its own: H4 packets to send back to back in one
/// buffer, then events, completions, the next deadline and, once, the reason it stopped.
///
/// Consume it in this order: write every packet in ``packets`` order (the controller must
/// see them as the host produced them), then hand out ``events`` in order, then resume
/// ``completions`` in order, then act on ``closeError``. Within one call every event the
/// host raised comes before every completion, so a request's completion (say
/// ``HostCompletion/connected(_:)``) never overtakes the event that announced the same
/// fact (``HostEvent/connected(_:)``).
public struct HostOutput: Sendable {
    /// One finished request.
    public struct Completion: Sendable {
        public var id: HostRequestID
        public var result: Result<HostCompletion, HostError>
    }

    /// Every packet's bytes, back to back, indicator byte first.
    public internal(set) var buffer: [UInt8] = []
    /// The packets to write to the controller, in sending order: ranges of ``buffer``.
    public internal(set) var packets: [Range<Int>] = []
    /// Events for the application, in order.
    public internal(set) var events: [HostEvent] = []
    /// Requests that finished, in order.
    public internal(set) var completions: [Completion] = []
    /// Call `tick(at:into:)` no later than this; nil when nothing is pending. The latest
    /// call's value replaces any earlier one.
    public internal(set) var deadline: MonotonicTime?
    /// Set when the host cannot go on: end the transport. Every connection is gone.
    public internal(set) var closeError: HostError?

    public init() {
        self.init(reservingCapacity: true)
    }

    /// An output with no storage yet (the host's own placeholder between calls).
    init(reservingCapacity: Bool) {
        guard reservingCapacity else { return }
        buffer.reserveCapacity(512)
        packets.reserveCapacity(8)
        events.reserveCapacity(8)
    }

    /// Clears everything but keeps the storage.
    public mutating func removeAll() {
        buffer.removeAll(keepingCapacity: true)
        packets.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        completions.removeAll(keepingCapacity: true)
        deadline = nil
        closeError = nil
    }

    /// True when the call produced nothing at all.
    public var isEmpty: Bool {
        packets.isEmpty && events.isEmpty && completions.isEmpty && deadline == nil && closeError == nil
    }

    /// The bytes of one packet.
    public func bytes(of packet: Range<Int>) -> ArraySlice<UInt8> { buffer[packet] }

    /// Appends one whole H4 packet to send.
    @inline(__always)
    mutating func send(_ packet: [UInt8]) {
        let start = buffer.count
        buffer.append(contentsOf: packet)
        packets.append(start..<buffer.count)
    }
}
