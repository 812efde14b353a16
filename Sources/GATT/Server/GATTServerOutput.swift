import ATT

/// What the server produced for one call, in a caller-owned value that is reused across
/// calls so the hot path allocates nothing: PDUs back to back in one buffer, then events.
public struct GATTServerOutput: Sendable {
    /// One PDU to send: the bytes `buffer[range]` on `connection`.
    public struct PDU: Hashable, Sendable {
        public var connection: ConnectionID
        public var range: Range<Int>
    }

    /// All PDU bytes, back to back.
    public internal(set) var buffer: [UInt8] = []
    /// The PDUs, in sending order.
    public internal(set) var pdus: [PDU] = []
    /// Events for the application, in order.
    public internal(set) var events: [GATTServerEvent] = []

    public init() {
        buffer.reserveCapacity(1024)
        pdus.reserveCapacity(8)
    }

    /// Clears everything but keeps the storage.
    public mutating func removeAll() {
        buffer.removeAll(keepingCapacity: true)
        pdus.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
    }

    /// The bytes of one PDU.
    public func bytes(of pdu: PDU) -> ArraySlice<UInt8> { buffer[pdu.range] }

    /// Records that bytes appended since `start` form one PDU for `connection`.
    @inline(__always)
    mutating func commit(_ connection: ConnectionID, from start: Int) {
        if buffer.count > start { pdus.append(PDU(connection: connection, range: start..<buffer.count)) }
    }
}

/// The sans-I/O actions of the server, for callers that prefer a list (tests, tools).
public enum GATTServerAction: Hashable, Sendable {
    case send(ConnectionID, [UInt8])
    case event(GATTServerEvent)
}

extension GATTServerOutput {
    /// The output as a list of actions: every send, then every event.
    public var actions: [GATTServerAction] {
        pdus.map { .send($0.connection, Array(buffer[$0.range])) } + events.map { .event($0) }
    }
}
