import ATT
import Capture
import GATT

/// Our GATT server engine as a replay target: one connection, fed the captured client's
/// PDUs at the captured times, answering with whatever the engine sends.
public struct GATTServerReplayTarget: ATTReplayTarget {
    public private(set) var server: GATTServer
    var connection = ConnectionID(1)
    var connected = false
    var origin: Int64?

    /// - Parameter rxMTU: the server's receive MTU, set to the captured server's so that
    ///   Exchange MTU compares behaviour rather than configuration.
    public init(database: AttributeDatabase, rxMTU: UInt16? = nil) {
        var configuration = GATTServerConfiguration()
        if let rxMTU { configuration.rxMTU = rxMTU }
        server = GATTServer(database: database, configuration: configuration)
    }

    /// Sets the receive MTU our server announces from the next conversation on: the
    /// captured server's of that conversation, so that Exchange MTU compares behaviour
    /// rather than configuration.
    public mutating func setReceiveMTU(_ mtu: UInt16) {
        server.setReceiveMTU(mtu)
    }

    /// Each conversation is a new connection to the same server.
    public mutating func begin(_ conversation: ATTConversation) {
        var out = GATTServerOutput()
        if connected {
            server.disconnect(connection, into: &out)
            connection = ConnectionID(connection.rawValue + 1)
        }
        server.connect(connection)
        connected = true
    }

    /// Conversations replayed in pieces that interleave (overlapping connections) are
    /// connections open at once: each has its own, named by the conversation's serial.
    var connections: [Int: ConnectionID] = [:]
    var nextConnection: UInt64 = 1_000

    /// Makes the conversation `serial` the connection fed next, connecting it first
    /// when it is new.
    mutating func resume(_ serial: Int) {
        if let id = connections[serial] {
            connection = id
            return
        }
        connection = ConnectionID(nextConnection)
        nextConnection += 1
        connections[serial] = connection
        server.connect(connection)
    }

    /// The conversation `serial` ended: its connection closes.
    mutating func end(_ serial: Int) {
        guard let id = connections.removeValue(forKey: serial) else { return }
        var out = GATTServerOutput()
        server.disconnect(id, into: &out)
    }

    /// Serves `database` from now on, keeping the open connections and what they
    /// negotiated and subscribed to (no Service Changed: the database grew as the
    /// capture revealed it, the captured server's did not change).
    mutating func replaceDatabase(with database: AttributeDatabase, at timestamp: Int64) {
        let start = origin ?? timestamp
        origin = start
        var out = GATTServerOutput()
        try? server.modifyDatabase(at: ReplayClock.time(timestamp, since: start), into: &out) { db in
            db = database
            return nil
        }
    }

    /// Our server notifies or indicates the value to the client if it subscribed, as the
    /// captured server's application did; a characteristic our database does not let
    /// notify (or indicate) sends nothing.
    public mutating func push(_ value: [UInt8], handle: AttributeHandle, indication: Bool, at timestamp: Int64) -> [[UInt8]]? {
        let start = origin ?? timestamp
        origin = start
        var out = GATTServerOutput()
        if indication {
            _ = try? server.indicate(value, characteristic: handle, at: ReplayClock.time(timestamp, since: start), into: &out)
        } else {
            _ = try? server.notify(value, characteristic: handle, into: &out)
        }
        return out.pdus.filter { $0.connection == connection }.map { Array(out.bytes(of: $0)) }
    }

    public mutating func receive(_ pdu: ArraySlice<UInt8>, at timestamp: Int64) -> [[UInt8]] {
        let start = origin ?? timestamp
        origin = start
        let now = ReplayClock.time(timestamp, since: start)
        var out = GATTServerOutput()
        server.receive(pdu, from: connection, at: now, into: &out)
        return out.pdus.filter { $0.connection == connection }.map { Array(out.bytes(of: $0)) }
    }
}
