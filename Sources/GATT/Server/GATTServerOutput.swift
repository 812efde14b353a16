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

    /// Takes what a link's client engine produced: its PDUs join the output in order, the
    /// rest become ``GATTServerEvent/client(_:_:)`` events. Deadlines are not events: the
    /// server's ``GATTServer/deadline`` includes the client's.
    mutating func take(_ actions: [GATTClientAction], from connection: ConnectionID) {
        for action in actions {
            switch action {
            case .send(let bytes):
                let start = buffer.count
                buffer += bytes
                commit(connection, from: start)
            case .scheduleDeadline:
                break
            case .complete, .deliver, .raiseSecurity, .close:
                events.append(.client(connection, action))
            }
        }
    }

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
