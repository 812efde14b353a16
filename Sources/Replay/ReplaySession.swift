#if canImport(Glibc)
import Glibc
#endif
import ATT
import Capture
import GATT

/// A capture replayed against one of our engines, as the capture streams: ``next()``
/// reads until the next conversation is over and returns its report. Memory is bounded
/// whatever the capture's shape: conversations are read in pieces
/// (``ATTConversationPieceStream``) and each piece is replayed and dropped, so one endless
/// connection, or a FIFO that never ends, replays in the memory of a piece; what is kept
/// (the divergences reported, a rebuilt database) is bounded too, and what a bound drops
/// is counted (``ReplayReport/unkeptDivergences``, ``droppedValueBytes``).
///
/// Like `attune replay`, a session
/// - skips the mirrored copy of a conversation (btmon holds both ends of a virtual link,
///   the same PDUs once per controller, at the same time);
/// - as server, serves the given database or one rebuilt from the captured responses
///   (built directly, see ``CapturedDatabase/attributeDatabase()``), with each
///   conversation's server receive MTU taken from that conversation's own Exchange MTU,
///   and runs the conversations in order on one server, so that writes carry over
///   (overlapping connections are open on it at once, as they were);
/// - as client, has our client perform the procedures the captured client ran.
///
/// A rebuilt database needs every conversation of the capture: a file is then read twice,
/// once to rebuild and once to replay. An input that cannot be read twice (a FIFO, a
/// reader over bytes) is replayed in one pass, each piece against the database rebuilt
/// from it and the pieces before it (``DatabaseSource/rebuiltWhileStreaming``).
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
        /// Rebuilt as the capture streams: each piece of a conversation meets the
        /// database rebuilt from itself and what came before it; values written earlier
        /// carry over.
        case rebuiltWhileStreaming
    }

    /// How many divergences a session keeps for the reports it returns; past either
    /// bound they are only counted (``ReplayReport/unkeptDivergences``).
    public struct DivergenceBound: Sendable {
        /// Kept per conversation.
        public var perConversation: Int
        /// Bytes kept (the PDUs of each divergence and its bookkeeping) across the
        /// conversations still open.
        public var totalBytes: Int

        public init(perConversation: Int = 1000, totalBytes: Int = 4 << 20) {
            self.perConversation = max(0, perConversation)
            self.totalBytes = max(0, totalBytes)
        }
    }

    /// One conversation replayed.
    public struct Step: Sendable {
        public var controller: UInt16
        public var handle: UInt16
        /// What LE Connection Complete said, when the capture showed it.
        public var connection: CapturedConnection?
        /// The ATT PDUs the conversation held.
        public var pduCount = 0
        public var report = ReplayReport()
        /// Our server's receive MTU for this conversation, when the captured server
        /// exchanged one (as server only).
        public var serverRxMTU: UInt16?
    }

    public let side: Side
    /// Only conversations on this connection handle, when set.
    public let connectionHandle: UInt16?
    /// As server: where the database comes from; nil as client.
    public let databaseSource: DatabaseSource?
    public let divergenceBound: DivergenceBound

    var stream: ATTConversationPieceStream
    var recent = RecentSignatures()
    var target: GATTServerReplayTarget?
    var explainer: ReplayExplainer
    /// The conversations open, by serial.
    var open: [Int: ReplayedConversation] = [:]
    /// Bytes of divergences the open conversations keep.
    var keptBytes = 0
    /// For ``DatabaseSource/rebuiltWhileStreaming``: what the capture revealed so far, the
    /// revision of it last served and the database built from it then.
    var learned = CapturedDatabase()
    var servedRevision: Int?
    var servedDatabase: AttributeDatabase?
    /// Value bytes the database rebuilt before the replay did not keep.
    var droppedBeforeReplay = 0

    /// Value bytes the capture showed that the rebuilt database did not keep (past 512
    /// bytes for one attribute, past ``CapturedDatabase/valueBytesBound`` in all).
    public var droppedValueBytes: Int { droppedBeforeReplay + learned.droppedValueBytes }
    /// Pieces cut inside a transaction or procedure that outgrew half a piece (see
    /// ``ATTConversationPieceStream/forcedCuts``).
    public var forcedCuts: Int { stream.forcedCuts }
    /// Conversations ended early because too many were open at once.
    public var closedEarly: Int { stream.closedEarly }
    /// Connections the capture decoder forgot because too many were open at once.
    public var forgottenConnections: Int { stream.forgottenConnections }

    /// Replays a capture file.
    /// - Parameters:
    ///   - database: as server, the database to serve; nil rebuilds one from the capture.
    ///   - limits: how the capture is read in pieces; the defaults bound memory to a few
    ///     megabytes.
    public init(path: String, side: Side, connectionHandle: UInt16? = nil, database: AttributeDatabase? = nil,
                divergences: DivergenceBound = DivergenceBound(), limits: ATTConversationPieceStream.Limits = .init())
        throws(ReplayError)
    {
        let regular = Self.isRegularFile(path)
        let cut = Self.cut(for: side)
        var source: DatabaseSource?
        var server: GATTServerReplayTarget?
        var dropped = 0
        if side == .server {
            if let database {
                source = .given
                server = GATTServerReplayTarget(database: database)
            } else if regular {
                // First pass: the database the whole capture reveals, read in the same pieces.
                var rebuilt = CapturedDatabase()
                var first: ATTConversationPieceStream
                do { first = try ATTConversationPieceStream(path: path, cut: cut, limits: limits) } catch {
                    throw .capture(error)
                }
                var recent = RecentSignatures()
                var skipped: Set<Int> = [], replayed: Set<Int> = []
                while true {
                    let next: ATTConversationPiece?
                    do { next = try first.next() } catch { throw .capture(error) }
                    guard let piece = next else { break }
                    // As in the replay: a connection without ATT traffic is no conversation.
                    if piece.isFirst, piece.isLast, piece.conversation.pdus.isEmpty { continue }
                    if !replayed.contains(piece.serial), !skipped.contains(piece.serial) {
                        if Self.selected(piece.conversation, handle: connectionHandle, recent: &recent) {
                            replayed.insert(piece.serial)
                        } else {
                            skipped.insert(piece.serial)
                        }
                    }
                    if replayed.contains(piece.serial) { rebuilt.learn(from: piece.conversation) }
                    if piece.isLast {
                        replayed.remove(piece.serial)
                        skipped.remove(piece.serial)
                    }
                }
                rebuilt.inferClientConfigurations()
                do { server = GATTServerReplayTarget(database: try rebuilt.attributeDatabase()) } catch {
                    throw .database(error)
                }
                source = .rebuilt(attributes: rebuilt.attributes.count)
                dropped = rebuilt.droppedValueBytes
            } else {
                source = .rebuiltWhileStreaming
            }
        }
        let reader: CaptureReader
        do { reader = try CaptureReader(path: path) } catch { throw .capture(error) }
        self.init(reader: reader, side: side, connectionHandle: connectionHandle, source: source, target: server,
                  divergences: divergences, limits: limits)
        droppedBeforeReplay = dropped
    }

    /// Replays a capture from a reader, in one pass: as server without a database, each
    /// piece meets the database rebuilt from it and the ones before.
    public init(reader: CaptureReader, side: Side, connectionHandle: UInt16? = nil, database: AttributeDatabase? = nil,
                divergences: DivergenceBound = DivergenceBound(), limits: ATTConversationPieceStream.Limits = .init()) {
        self.init(reader: reader, side: side, connectionHandle: connectionHandle,
                  source: side == .client ? nil : database == nil ? .rebuiltWhileStreaming : .given,
                  target: database.map { GATTServerReplayTarget(database: $0) }, divergences: divergences, limits: limits)
    }

    init(reader: CaptureReader, side: Side, connectionHandle: UInt16?, source: DatabaseSource?,
         target: GATTServerReplayTarget?, divergences: DivergenceBound, limits: ATTConversationPieceStream.Limits) {
        self.side = side
        self.connectionHandle = connectionHandle
        databaseSource = source
        divergenceBound = divergences
        stream = ATTConversationPieceStream(reader: reader, cut: Self.cut(for: side), limits: limits)
        self.target = target
        explainer = ReplayExplainer(databaseRebuilt: source != .given)
    }

    /// Our client must see each procedure whole; our server each transaction.
    static func cut(for side: Side) -> ATTConversationPieceStream.Cut {
        side == .client ? .betweenProcedures : .betweenTransactions
    }

    /// The next conversation replayed, or nil at the end of the capture. Throws when the
    /// capture is damaged (the conversations before the damage were returned), or when
    /// a database rebuilt while streaming cannot be built.
    public mutating func next() throws(ReplayError) -> Step? {
        while true {
            let next: ATTConversationPiece?
            do { next = try stream.next() } catch { throw .capture(error) }
            guard let piece = next else { return nil }
            if let step = try replay(piece) { return step }
        }
    }

    /// Replays one piece; the conversation's step when it was the last.
    mutating func replay(_ piece: ATTConversationPiece) throws(ReplayError) -> Step? {
        let c = piece.conversation
        var state: ReplayedConversation
        if let known = open.removeValue(forKey: piece.serial) {
            state = known
        } else {
            // A connection without ATT traffic is no conversation.
            if piece.isLast, c.pdus.isEmpty { return nil }
            guard Self.selected(c, handle: connectionHandle, recent: &recent) else {
                if !piece.isLast { open[piece.serial] = .skipped }
                return nil
            }
            let header = Step(controller: c.controller, handle: c.handle, connection: c.connection)
            state = .replaying(header, keptBytes: 0, client: side == .client ? ClientReplay.Session(c) : nil)
        }
        guard case .replaying(var step, var kept, var client) = state else {
            if !piece.isLast { open[piece.serial] = state }
            return nil
        }
        let report: ReplayReport
        if var session = client {
            report = session.replay(c)
            client = session
        } else {
            report = try replayOnServer(piece)
            if let mtu = c.serverRxMTU { step.serverRxMTU = mtu }
        }
        step.pduCount += c.pdus.count
        step.report.absorb(report, offset: piece.offset, bound: divergenceBound, kept: &kept, keptInAll: &keptBytes)
        if piece.isLast {
            keptBytes -= kept
            target?.end(piece.serial)
            return step
        }
        open[piece.serial] = .replaying(step, keptBytes: kept, client: client)
        return nil
    }

    /// Feeds a piece's client PDUs to our server, on the connection of its conversation.
    mutating func replayOnServer(_ piece: ATTConversationPiece) throws(ReplayError) -> ReplayReport {
        let c = piece.conversation
        if databaseSource == .rebuiltWhileStreaming { try serveWhatIsLearned(from: c) }
        guard target != nil else { return ReplayReport() }   // never: every server source sets one
        if let mtu = c.serverRxMTU { target!.setReceiveMTU(mtu) }
        target!.resume(piece.serial)
        var report = ServerReplay.run(c, against: &target!)
        explainer.explain(&report, in: c)
        return report
    }

    /// Whether a conversation is replayed: on the chosen handle, and not the mirror of
    /// one replayed lately.
    static func selected(_ c: ATTConversation, handle: UInt16?, recent: inout RecentSignatures) -> Bool {
        if let handle, c.handle != handle { return false }
        return recent.insert(c)
    }

    /// Learns from a piece and, when that revealed more, serves the grown database,
    /// carrying over the values earlier pieces wrote.
    mutating func serveWhatIsLearned(from c: ATTConversation) throws(ReplayError) {
        learned.learn(from: c)
        guard learned.revision != servedRevision else { return }
        var now = learned
        now.inferClientConfigurations()
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
        servedRevision = learned.revision
        servedDatabase = database
        if target == nil {
            target = GATTServerReplayTarget(database: database)
        } else {
            target!.replaceDatabase(with: database, at: c.pdus.first?.frame.timestamp ?? 0)
        }
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
