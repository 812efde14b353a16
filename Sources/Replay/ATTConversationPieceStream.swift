import ATT
import Capture
import HCI

/// Reads a capture as ``ATTConversationPiece``s, in bounded memory whatever the capture's
/// shape: a conversation is handed out in pieces once it holds ``Limits/pieceCount`` PDUs
/// or ``Limits/pieceBytes`` bytes, the largest open one whenever all of them together
/// hold ``Limits/totalBytes``, and the oldest open one is ended when more than
/// ``Limits/openConversations`` are open. One endless connection, or a FIFO that never
/// ends, therefore replays in the memory of one piece.
///
/// A piece ends where the ``Cut`` allows: before the last request or indication still
/// unanswered (so a response is replayed with its request), and for client replay before
/// the last procedure (a discovery may go on). A piece that cannot be cut so at half its
/// size or more is cut whole, and counted in ``forcedCuts``.
///
/// Pieces come out as they are ready: those of overlapping conversations interleave.
public struct ATTConversationPieceStream {
    /// Where a conversation may be cut into pieces.
    public enum Cut: Sendable {
        /// Never: each conversation comes out whole when it ends (memory holds every open
        /// conversation, as ``ATTConversationStream`` documents).
        case never
        /// Between transactions: no request or indication is cut from its answer.
        case betweenTransactions
        /// Between the captured client's procedures, as ``ClientProcedureInference``
        /// groups them, and between transactions.
        case betweenProcedures
    }

    /// How much the stream holds before it hands pieces out.
    public struct Limits: Sendable {
        public var pieceCount: Int
        public var pieceBytes: Int
        public var totalBytes: Int
        public var openConversations: Int

        /// - Parameters:
        ///   - pieceCount: PDUs a conversation holds before a piece of it is handed out.
        ///   - pieceBytes: bytes (payload and per-PDU bookkeeping) likewise.
        ///   - totalBytes: bytes all open conversations hold together.
        ///   - openConversations: conversations open at once; past it the oldest ends.
        public init(pieceCount: Int = 1024, pieceBytes: Int = 1 << 20, totalBytes: Int = 8 << 20,
                    openConversations: Int = 256) {
            self.pieceCount = max(1, pieceCount)
            self.pieceBytes = max(1, pieceBytes)
            self.totalBytes = max(1, totalBytes)
            self.openConversations = max(1, openConversations)
        }

        static let unbounded = Limits(pieceCount: .max, pieceBytes: .max, totalBytes: .max, openConversations: .max)
    }

    /// What one buffered PDU costs beyond its payload: the decoded PDU, the frame's
    /// fields and the payload's own allocation, roughly.
    static let perPDUBytes = 224

    struct Key: Hashable {
        var controller: UInt16
        var handle: UInt16
    }

    struct Open {
        var serial: Int
        var conversation: ATTConversation
        /// PDUs of the conversation handed out in earlier pieces.
        var offset = 0
        var bytes = 0
    }

    public let cut: Cut
    public let limits: Limits
    var reader: CaptureReader
    var decoder = CaptureDecoder()
    var open: [Key: Open] = [:]
    var ready: [ATTConversationPiece] = []
    var readyHead = 0
    var nextSerial = 0
    var bufferedBytes = 0
    var atEnd = false
    /// Pieces cut where a transaction or procedure was still unfinished, because it
    /// outgrew half a piece (a hostile or damaged capture): the request and its answer
    /// were then replayed in different pieces, unpaired.
    public private(set) var forcedCuts = 0
    /// Conversations ended early because more than ``Limits/openConversations`` were
    /// open; what came after on the same handle replays as a conversation of its own.
    public private(set) var closedEarly = 0
    /// Connections the capture decoder forgot to stay bounded (see
    /// `CaptureDecoder.maximumConnections`): their later PDUs carry no peer.
    public var forgottenConnections: Int { decoder.forgottenConnections }

    public init(reader: CaptureReader, cut: Cut = .betweenTransactions, limits: Limits = Limits()) {
        self.reader = reader
        self.cut = cut
        self.limits = cut == .never ? .unbounded : limits
    }

    public init(path: String, cut: Cut = .betweenTransactions, limits: Limits = Limits()) throws(CaptureError) {
        self.init(reader: try CaptureReader(path: path), cut: cut, limits: limits)
    }

    /// The next piece, or nil at the end of the capture. Throws the reader's error for a
    /// damaged capture; the pieces before the damage came out already.
    public mutating func next() throws(CaptureError) -> ATTConversationPiece? {
        while true {
            if readyHead < ready.count {
                let piece = ready[readyHead]
                readyHead += 1
                if readyHead == ready.count {
                    ready.removeAll(keepingCapacity: true)
                    readyHead = 0
                }
                return piece
            }
            if atEnd { return nil }
            guard let record = try reader.next() else {
                atEnd = true
                for key in open.keys.sorted(by: { open[$0]!.serial < open[$1]!.serial }) { close(key) }
                continue
            }
            process(record)
        }
    }

    /// The record index of the earliest first PDU among the conversations still open
    /// or not yet handed out, for ``ATTConversationStream``'s ordering.
    var earliestPendingStart: Int? {
        var earliest: Int?
        for o in open.values {
            if let start = o.conversation.pdus.first?.frame.recordIndex { earliest = min(earliest ?? start, start) }
        }
        for piece in ready[readyHead...] {
            if let start = piece.conversation.pdus.first?.frame.recordIndex { earliest = min(earliest ?? start, start) }
        }
        return earliest
    }

    mutating func process(_ record: CaptureRecord) {
        guard let event = decoder.process(record) else { return }
        switch event {
        case let .connected(c):
            let key = Key(controller: c.controller, handle: c.handle)
            close(key)
            begin(key, ATTConversation(controller: c.controller, handle: c.handle, connection: c))
        case let .disconnected(controller, handle, _, _):
            close(Key(controller: controller, handle: handle))
        case let .frame(frame) where frame.channel == .attribute:
            let key = Key(controller: frame.controller, handle: frame.connectionHandle)
            if open[key] == nil {
                begin(key, ATTConversation(controller: frame.controller, handle: frame.connectionHandle,
                                           connection: frame.connection))
            }
            // Copy the payload out of the reader's buffer: pieces outlive it.
            var owned = frame
            owned.payload = Array(frame.payload)[...]
            let pdu: Result<ATTPDU, ATTDecodingError>
            do { pdu = .success(try ATTPDU.decode(owned.payload)) } catch { pdu = .failure(error) }
            let cost = owned.payload.count + Self.perPDUBytes
            open[key]!.conversation.pdus.append(CapturedATTPDU(frame: owned, pdu: pdu))
            open[key]!.bytes += cost
            bufferedBytes += cost
            if let o = open[key], o.conversation.pdus.count >= limits.pieceCount || o.bytes >= limits.pieceBytes {
                handOutPiece(of: key)
            }
            while bufferedBytes > limits.totalBytes,
                  let largest = open.max(by: { $0.value.bytes < $1.value.bytes })?.key {
                handOutPiece(of: largest)
            }
        default:
            break
        }
    }

    mutating func begin(_ key: Key, _ conversation: ATTConversation) {
        if open.count >= limits.openConversations,
           let oldest = open.min(by: { $0.value.serial < $1.value.serial })?.key {
            closedEarly += 1
            close(oldest)
        }
        open[key] = Open(serial: nextSerial, conversation: conversation)
        nextSerial += 1
    }

    /// Ends a conversation: its last piece, with whatever it still holds.
    mutating func close(_ key: Key) {
        guard let o = open.removeValue(forKey: key) else { return }
        bufferedBytes -= o.bytes
        ready.append(ATTConversationPiece(serial: o.serial, conversation: o.conversation, offset: o.offset, isLast: true))
    }

    /// Hands out the part of a conversation's PDUs before the cut, keeping the rest.
    mutating func handOutPiece(of key: Key) {
        guard var o = open[key], !o.conversation.pdus.isEmpty else { return }
        let count = o.conversation.pdus.count
        var at = cutIndex(o.conversation)
        if at < (count + 1) / 2 {
            if at < count { forcedCuts += 1 }
            at = count
        }
        var piece = o.conversation
        piece.pdus.removeSubrange(at...)
        var rest = o.conversation
        rest.pdus.removeSubrange(..<at)
        rest.mtusBefore = piece.exchangedMTUs
        let handedOut = piece.pdus.reduce(0) { $0 + $1.bytes.count + Self.perPDUBytes }
        ready.append(ATTConversationPiece(serial: o.serial, conversation: piece, offset: o.offset, isLast: false))
        o.offset += at
        o.bytes -= handedOut
        bufferedBytes -= handedOut
        o.conversation = rest
        open[key] = o
    }

    /// Where the cut may fall: the index of the first PDU kept back.
    func cutIndex(_ c: ATTConversation) -> Int {
        switch cut {
        case .never:
            return c.pdus.count
        case .betweenTransactions:
            return Self.firstUnanswered(in: c)
        case .betweenProcedures:
            let last = ClientProcedureInference.procedures(in: c).compactMap { $0.requests.first }.max() ?? c.pdus.count
            return min(last, Self.firstUnanswered(in: c))
        }
    }

    /// The index of the earliest request or indication still waiting for its answer at
    /// the end of the PDUs (each role has at most one outstanding), else their count.
    static func firstUnanswered(in c: ATTConversation) -> Int {
        var waiting: [ATTRole: Int] = [:]
        for i in c.pdus.indices {
            guard let raw = c.pdus[i].opcode else { continue }
            let opcode = ATTOpcode(raw)
            guard let role = ATTRole.sender(of: opcode) else { continue }
            switch opcode.kind {
            case .request, .indication: waiting[role] = i
            case .response, .confirmation: waiting[role.peer] = nil
            default: break
            }
        }
        return waiting.values.min() ?? c.pdus.count
    }
}
