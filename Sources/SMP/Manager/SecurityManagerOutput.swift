/// What a ``SecurityManager`` produced for one call, in a caller-owned value reused across
/// calls: SMP PDUs back to back in one buffer, then events.
public struct SecurityManagerOutput: Sendable {
    /// All PDU bytes, back to back.
    public internal(set) var buffer: [UInt8] = []
    /// Each PDU's range in ``buffer``, in sending order (to send on fixed channel 0x0006).
    public internal(set) var pdus: [Range<Int>] = []
    /// Events, in order.
    public internal(set) var events: [SecurityManagerEvent] = []

    public init() {
        buffer.reserveCapacity(2 * SMPPDU.mtu)
    }

    /// Clears everything but keeps the storage.
    public mutating func removeAll() {
        buffer.removeAll(keepingCapacity: true)
        pdus.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
    }

    /// The bytes of one PDU.
    public func bytes(of range: Range<Int>) -> ArraySlice<UInt8> { buffer[range] }

    /// Every PDU as its own array, for tests and tools.
    public var sentPDUs: [[UInt8]] { pdus.map { Array(buffer[$0]) } }

    mutating func send(_ pdu: SMPPDU) {
        let start = buffer.count
        pdu.encode(into: &buffer)
        pdus.append(start..<buffer.count)
    }
}
