import HCI

/// Turns capture records into L2CAP frames and connection events: HCI packets, ACL
/// reassembly keyed on (controller, connection handle, direction), L2CAP basic frames by
/// channel, with connection handles mapped to peers and roles from LE Connection Complete.
///
/// It is a pure state machine: records in, events out, bounded memory (see
/// ``ACLReassembler``). Feed every record in order, including non-ACL ones, so that
/// connection events are seen.
public struct CaptureDecoder: Sendable {
    struct ConnectionKey: Hashable, Sendable {
        var controller: UInt16
        var handle: UInt16
    }

    public private(set) var reassembler: ACLReassembler<CaptureStreamKey>
    var connections: [ConnectionKey: CapturedConnection] = [:] {
        didSet { cachedKey = nil }
    }
    /// The last lookup, because consecutive frames nearly always share a connection.
    var cachedKey: ConnectionKey?
    var cachedConnection: CapturedConnection?

    /// The most connections the table holds: a controller has a few dozen at once, and a
    /// hostile capture of connections never ended must not grow it without bound.
    public static let maximumConnections = 4096
    /// Connections forgotten, the oldest first, to keep the table within
    /// ``maximumConnections``: their frames come out without the connection.
    public private(set) var forgottenConnections = 0

    public init(maximumFrameLength: Int = 65535 + L2CAPBasicFrame.headerLength) {
        reassembler = ACLReassembler(maximumFrameLength: maximumFrameLength)
    }

    /// Connections open at this point of the capture.
    public var openConnections: [CapturedConnection] { Array(connections.values) }

    /// The connection on a controller's handle, if the capture showed it being made.
    public func connection(controller: UInt16, handle: UInt16) -> CapturedConnection? {
        connections[ConnectionKey(controller: controller, handle: handle)]
    }

    /// Feeds one record. Most records yield nothing; an ACL packet yields at most one
    /// frame, and possibly a drop (reported first, via `dropped`).
    public mutating func process(_ record: CaptureRecord) -> CaptureEvent? {
        var drop: CaptureEvent?
        let event = process(record, dropped: &drop)
        return event ?? drop
    }

    /// Feeds one record; an ACL packet that both completes a frame and displaces an
    /// unfinished one reports the frame as the result and the displacement in `dropped`.
    public mutating func process(_ record: CaptureRecord, dropped: inout CaptureEvent?) -> CaptureEvent? {
        guard case let .hci(type) = record.kind else { return nil }
        switch type {
        case .aclData:
            return processACL(record, dropped: &dropped)
        case .event:
            return processEvent(record)
        default:
            return nil
        }
    }

    @inline(__always)
    mutating func processACL(_ record: CaptureRecord, dropped: inout CaptureEvent?) -> CaptureEvent? {
        let packet: ACLDataPacket
        do {
            packet = try ACLDataPacket(decoding: record.payload)
        } catch {
            return .malformed(recordIndex: record.index, error: error)
        }
        let key = CaptureStreamKey(controller: record.controller, direction: record.direction)
        let output = reassembler.receive(packet, key: key)
        if let reason = output.dropped {
            dropped = .dropped(recordIndex: record.index, controller: record.controller, handle: packet.handle,
                               direction: record.direction, reason: reason)
        }
        guard let bytes = output.frame else {
            let event = dropped
            dropped = nil
            return event
        }
        let frame: L2CAPBasicFrame
        do {
            frame = try L2CAPBasicFrame(decoding: bytes)
        } catch {
            return .malformed(recordIndex: record.index, error: error)
        }
        let connectionKey = ConnectionKey(controller: record.controller, handle: packet.handle)
        if connectionKey != cachedKey {
            cachedConnection = connections.isEmpty ? nil : connections[connectionKey]
            cachedKey = connectionKey
        }
        let connection = cachedConnection
        return .frame(CapturedL2CAPFrame(
            recordIndex: record.index, byteOffset: record.byteOffset, timestamp: record.timestamp,
            controller: record.controller, direction: record.direction, connectionHandle: packet.handle,
            channel: frame.channel, payload: frame.payload, connection: connection))
    }

    mutating func processEvent(_ record: CaptureRecord) -> CaptureEvent? {
        // Only the events that change the connection table are decoded here.
        guard let code = record.payload.first,
              code == HCIEvent.Code.leMeta || code == HCIEvent.Code.disconnectionComplete
        else { return nil }
        let event: HCIEvent
        do {
            event = try HCIEvent(decoding: record.payload)
        } catch {
            return .malformed(recordIndex: record.index, error: error)
        }
        switch event {
        case let .leConnectionComplete(complete) where complete.status.isSuccess:
            let connection = CapturedConnection(
                controller: record.controller, handle: complete.handle, role: complete.role,
                peerAddress: complete.peerAddress, peerAddressType: complete.peerAddressType,
                connectedAt: record.timestamp)
            let key = ConnectionKey(controller: record.controller, handle: complete.handle)
            if connections[key] == nil, connections.count >= Self.maximumConnections,
               let oldest = connections.min(by: { $0.value.connectedAt < $1.value.connectedAt })?.key {
                connections.removeValue(forKey: oldest)
                forgottenConnections += 1
            }
            connections[key] = connection
            return .connected(connection)
        case let .disconnectionComplete(done) where done.status.isSuccess:
            let key = ConnectionKey(controller: record.controller, handle: done.handle)
            let connection = connections.removeValue(forKey: key)
            reassembler.reset(handle: done.handle, key: CaptureStreamKey(controller: record.controller, direction: .sent))
            reassembler.reset(handle: done.handle, key: CaptureStreamKey(controller: record.controller, direction: .received))
            return .disconnected(controller: record.controller, handle: done.handle, reason: done.reason,
                                 connection: connection)
        default:
            return nil
        }
    }
}
