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
