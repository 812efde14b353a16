#if canImport(Glibc)
import Glibc
#endif
import ATT
import Capture
import GATT

/// A capture replayed against one of our engines, conversation by conversation, as the
/// capture streams: ``next()`` reads until the next conversation is over, replays it and
/// returns its report. Memory holds the conversations still open, not the capture.
///
/// Like `attune replay`, a session
/// - skips the mirrored copy of a conversation (btmon holds both ends of a virtual link,
///   the same PDUs once per controller, at the same time);
/// - as server, serves the given database or one rebuilt from the captured responses
///   (built directly, see ``CapturedDatabase/attributeDatabase()``), with each
///   conversation's server receive MTU taken from that conversation's own Exchange MTU,
///   and runs the conversations in order on one server, so that writes carry over;
/// - as client, has our client perform the procedures the captured client ran.
///
/// A rebuilt database needs every conversation of the capture: a file is then read twice,
/// once to rebuild and once to replay. An input that cannot be read twice (a FIFO, a
/// reader over bytes) is replayed in one pass, each conversation against the database
/// rebuilt from it and the conversations before it (``DatabaseSource/rebuiltWhileStreaming``).
public struct ReplaySession {
    public enum Side: Sendable {
        /// Our GATT server answers the captured client's requests.
        case server
        /// Our GATT client performs the captured client's procedures.
        case client
    }

    /// Where the database our server serves comes from.
    public enum DatabaseSource: Sendable, Equatable {
        case given
        /// Rebuilt from every conversation of the capture, read once before the replay.
        case rebuilt(attributes: Int)
        /// Rebuilt as the capture streams: each conversation meets the database rebuilt
        /// from itself and the conversations before it; values written earlier carry over.
        case rebuiltWhileStreaming
    }

    /// One conversation replayed.
    public struct Step: Sendable {
        public var conversation: ATTConversation
        public var report: ReplayReport
        /// Our server's receive MTU for this conversation, when the captured server
        /// exchanged one (as server only).
        public var serverRxMTU: UInt16?
    }

    public let side: Side
    /// Only conversations on this connection handle, when set.
    public let connectionHandle: UInt16?
    /// As server: where the database comes from; nil as client.
    public let databaseSource: DatabaseSource?

    var stream: ATTConversationStream
    var recent = RecentSignatures()
    var target: GATTServerReplayTarget?
    var explainer: ReplayExplainer
    /// For ``DatabaseSource/rebuiltWhileStreaming``: what the capture revealed so far, and
    /// the database last built from it.
    var learned = CapturedDatabase()
    var served: CapturedDatabase?
    var servedDatabase: AttributeDatabase?

    /// Replays a capture file.
    /// - Parameters:
    ///   - database: as server, the database to serve; nil rebuilds one from the capture.
    public init(path: String, side: Side, connectionHandle: UInt16? = nil, database: AttributeDatabase? = nil)
        throws(ReplayError)
    {
        let regular = Self.isRegularFile(path)
        var source: DatabaseSource?
        var server: GATTServerReplayTarget?
        if side == .server {
            if let database {
                source = .given
                server = GATTServerReplayTarget(database: database)
            } else if regular {
                // First pass: the database the whole capture reveals.
                var rebuilt = CapturedDatabase()
                var first: ATTConversationStream
                do { first = try ATTConversationStream(path: path) } catch { throw .capture(error) }
                var recent = RecentSignatures()
                while true {
                    let next: ATTConversation?
                    do { next = try first.next() } catch { throw .capture(error) }
                    guard let c = next else { break }
                    guard Self.selected(c, handle: connectionHandle, recent: &recent) else { continue }
                    rebuilt.learn(from: c)
                }
                rebuilt.inferClientConfigurations()
                do { server = GATTServerReplayTarget(database: try rebuilt.attributeDatabase()) } catch {
                    throw .database(error)
                }
                source = .rebuilt(attributes: rebuilt.attributes.count)
            } else {
                source = .rebuiltWhileStreaming
            }
        }
        let reader: CaptureReader
        do { reader = try CaptureReader(path: path) } catch { throw .capture(error) }
        self.init(reader: reader, side: side, connectionHandle: connectionHandle, source: source, target: server)
    }

    /// Replays a capture from a reader, in one pass: as server without a database, each
    /// conversation meets the database rebuilt from it and the ones before.
    public init(reader: CaptureReader, side: Side, connectionHandle: UInt16? = nil, database: AttributeDatabase? = nil) {
        self.init(reader: reader, side: side, connectionHandle: connectionHandle,
                  source: side == .client ? nil : database == nil ? .rebuiltWhileStreaming : .given,
                  target: database.map { GATTServerReplayTarget(database: $0) })
    }

    init(reader: CaptureReader, side: Side, connectionHandle: UInt16?, source: DatabaseSource?,
         target: GATTServerReplayTarget?) {
        self.side = side
        self.connectionHandle = connectionHandle
        databaseSource = source
        stream = ATTConversationStream(reader: reader)
        self.target = target
        explainer = ReplayExplainer(databaseRebuilt: source != .given)
    }

    /// The next conversation replayed, or nil at the end of the capture. Throws when the
    /// capture is damaged (the conversations before the damage were returned), or when
    /// a database rebuilt while streaming cannot be built.
    public mutating func next() throws(ReplayError) -> Step? {
        while true {
            let next: ATTConversation?
            do { next = try stream.next() } catch { throw .capture(error) }
            guard let c = next else { return nil }
            guard Self.selected(c, handle: connectionHandle, recent: &recent) else { continue }
            switch side {
            case .client:
                return Step(conversation: c, report: ClientReplay.run(c), serverRxMTU: nil)
            case .server:
                if databaseSource == .rebuiltWhileStreaming { try serveWhatIsLearned(from: c) }
                guard var server = target else { continue }   // never: every server source sets one
                let mtu = c.serverRxMTU
                if let mtu { server.setReceiveMTU(mtu) }
                server.begin(c)
                var report = ServerReplay.run(c, against: &server)
                explainer.explain(&report, in: c)
                target = server
                return Step(conversation: c, report: report, serverRxMTU: mtu)
            }
        }
    }

    /// Whether a conversation is replayed: on the chosen handle, and not the mirror of
    /// one replayed lately.
    static func selected(_ c: ATTConversation, handle: UInt16?, recent: inout RecentSignatures) -> Bool {
        if let handle, c.handle != handle { return false }
        return recent.insert(c)
    }

    /// Learns from a conversation and, when that revealed more, serves the grown database,
    /// carrying over the values earlier conversations wrote.
    mutating func serveWhatIsLearned(from c: ATTConversation) throws(ReplayError) {
        learned.learn(from: c)
        var now = learned
        now.inferClientConfigurations()
        guard now.attributes != served?.attributes || now.services != served?.services else { return }
        var database: AttributeDatabase
        do { database = try now.attributeDatabase() } catch { throw .database(error) }
        if let old = target?.server.database, let initial = servedDatabase {
            for attribute in old.attributes where attribute.kind == .stored {
                guard initial[attribute.handle]?.value != attribute.value,
                      let i = database.index(of: attribute.handle), database.attributes[i].type == attribute.type
                else { continue }
                database.setValue(attribute.value, at: i)
            }
        }
        served = now
        servedDatabase = database
        target = GATTServerReplayTarget(database: database)
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFREG
    }
}

/// Why a replay could not go on.
public enum ReplayError: Error, Sendable, CustomStringConvertible {
    /// The capture cannot be read (or is damaged at a record).
    case capture(CaptureError)
    /// The database rebuilt from the capture is not one our server can serve.
    case database(DatabaseError)
    /// The capture (or the connection asked for) holds no ATT conversation to serve.
    case nothingToServe

    public var description: String {
        switch self {
        case let .capture(error): return "\(error)"
        case let .database(error): return "cannot rebuild a database from the capture: \(error)"
        case .nothingToServe: return "no ATT conversation to serve"
        }
    }
}
