import ATT
import Capture
import GATT

/// What it takes to serve again the peripheral a capture recorded: the database rebuilt
/// from the captured responses, the values its application pushed on its own with their
/// timing, and how it answered writes. Sans-I/O; Attune's `CapturedPeripheral` serves it
/// on a peripheral manager.
///
/// The database is rebuilt from every conversation selected (mirrored copies skipped, as
/// ``ReplaySession`` does); the pushes come from the first selected conversation, the one
/// served. A characteristic value whose write the captured server refused is dynamic in
/// ``database``, so that the application serving it can refuse the same write
/// (``answer(toWrite:)``); every other attribute is stored and behaves as our server's.
public struct CapturedServerScript: Sendable {
    /// The conversation served: its pushes and their timing are ``pushes``.
    public let conversation: ATTConversation
    /// The rebuilt database; values as captured.
    public let database: AttributeDatabase
    /// How many attributes the capture revealed.
    public let capturedAttributes: Int
    /// The server's receive MTU as its Exchange MTU Response announced it, within 23…517.
    public let serverRxMTU: UInt16?
    /// The notifications and indications the captured server sent on its own, in order.
    /// Service Changed is left out: the database served does not change.
    public let pushes: [CapturedPush]
    /// Captured writes and how the captured server answered them.
    let writeAnswers: [CapturedWriteAnswer]

    /// Reads a capture file: the conversations on `connectionHandle` (all when nil), the
    /// first of them served.
    public init(path: String, connectionHandle: UInt16? = nil) throws(ReplayError) {
        var stream: ATTConversationStream
        do { stream = try ATTConversationStream(path: path) } catch { throw .capture(error) }
        try self.init(stream: &stream, connectionHandle: connectionHandle)
    }

    /// Serves the first of `conversations` on `connectionHandle` (all when nil); the
    /// database is rebuilt from all of them.
    public init(conversations: [ATTConversation], connectionHandle: UInt16? = nil) throws(ReplayError) {
        var recent = RecentSignatures()
        let selected = conversations.filter { ReplaySession.selected($0, handle: connectionHandle, recent: &recent) }
        try self.init(selected: selected)
    }

    init(stream: inout ATTConversationStream, connectionHandle: UInt16?) throws(ReplayError) {
        var recent = RecentSignatures()
        var served: ATTConversation?
        var rebuilt = CapturedDatabase()
        var answers: [CapturedWriteAnswer] = []
        var seen: Set<CapturedWriteAnswer.Key> = []
        while true {
            let next: ATTConversation?
            do { next = try stream.next() } catch { throw .capture(error) }
            guard let c = next else { break }
            guard !c.pdus.isEmpty, ReplaySession.selected(c, handle: connectionHandle, recent: &recent) else { continue }
            rebuilt.learn(from: c)
            CapturedWriteAnswer.merge(CapturedWriteAnswer.answers(in: c), into: &answers, seen: &seen)
            if served == nil { served = c }
        }
        try self.init(served: served, rebuilt: rebuilt, answers: answers)
    }

    init(selected: [ATTConversation]) throws(ReplayError) {
        var rebuilt = CapturedDatabase()
        var answers: [CapturedWriteAnswer] = []
        var seen: Set<CapturedWriteAnswer.Key> = []
        for c in selected where !c.pdus.isEmpty {
            rebuilt.learn(from: c)
            CapturedWriteAnswer.merge(CapturedWriteAnswer.answers(in: c), into: &answers, seen: &seen)
        }
        try self.init(served: selected.first { !$0.pdus.isEmpty }, rebuilt: rebuilt, answers: answers)
    }

    init(served: ATTConversation?, rebuilt: CapturedDatabase, answers: [CapturedWriteAnswer]) throws(ReplayError) {
        guard let served else { throw .nothingToServe }
        var rebuilt = rebuilt
        rebuilt.inferClientConfigurations()
        // A central subscribing to the recording needs the CCCDs the capture never showed.
        rebuilt.inferMissingClientConfigurations()
        var database: AttributeDatabase
        do { database = try rebuilt.attributeDatabase() } catch { throw .database(error) }
        // The values whose writes the captured server refused are the application's.
        let refused = Set(answers.filter { $0.error != nil }.map(\.handle))
        if !refused.isEmpty {
            let valueHandles = Set(database.characteristics.map(\.valueHandle))
            var list = database.attributes
            for i in list.indices where refused.contains(list[i].handle) && valueHandles.contains(list[i].handle)
                && list[i].kind == .stored {
                list[i].kind = .dynamic
            }
            do { database = try AttributeDatabase(attributes: list) } catch { throw .database(error) }
        }
        conversation = served
        self.database = database
        capturedAttributes = rebuilt.attributes.count
        serverRxMTU = served.serverRxMTU.map { min(517, max(23, $0)) }
        pushes = CapturedPush.pushes(in: served, database: database)
        writeAnswers = answers
    }

    /// How the captured server answered a write of `parts` (one Write Request, or the
    /// prepared parts of an Execute Write): nil when it accepted, or when the capture has
    /// no such write (a write our server would accept is accepted), else its error.
    ///
    /// A write matches a captured one of the same handle and value. Prepared writes the
    /// captured server refused part of the way match any write of that handle whose value
    /// begins with the parts sent up to the refusal: our server queues prepared writes and
    /// refuses at Execute Write what the captured server refused at a Prepare Write.
    public func answer(toWrite parts: [ApplicationWrite]) -> ATTErrorCode? {
        answer(parts.map { ($0.handle, $0.offset, $0.value) })
    }

    /// How the captured server answered a Write Request of `value` to `handle`; see
    /// the answer to prepared parts above.
    public func answer(toWrite handle: AttributeHandle, value: [UInt8]) -> ATTErrorCode? {
        answer([(handle, 0, value)])
    }

    func answer(_ parts: [(handle: AttributeHandle, offset: Int, value: [UInt8])]) -> ATTErrorCode? {
        guard let first = parts.first, parts.allSatisfy({ $0.handle == first.handle }) else { return nil }
        var value: [UInt8] = []
        for p in parts {
            // Parts out of order or with gaps are nothing the capture's long writes were.
            guard p.offset == Int(first.offset) + value.count else { return nil }
            value += p.value
        }
        for a in writeAnswers where a.handle == first.handle && a.offset == first.offset {
            if a.value == value { return a.error }
            if a.isPrefix, a.error != nil, value.starts(with: a.value) { return a.error }
        }
        return nil
    }
}

/// A notification or indication the captured server's application sent on its own.
public struct CapturedPush: Hashable, Sendable {
    /// What a push's timing counts from.
    public enum Anchor: Hashable, Sendable {
        /// The start of the conversation (its first ATT PDU).
        case connection
        /// The `ordinal`-th time (from 0) the client turned notifications or indications
        /// of the characteristic on (a write of its CCCD).
        case subscription(AttributeHandle, ordinal: Int)
    }

    /// The characteristic value handle.
    public var handle: AttributeHandle
    public var value: [UInt8]
    public var isIndication: Bool
    public var anchor: Anchor
    /// How long after the anchor the captured server sent it (never negative, at most a day).
    public var offset: Duration
    /// The record of the capture that holds it.
    public var record: Int

    /// The pushes of a conversation, each timed from the latest subscription to its
    /// characteristic before it (the connection when there was none).
    static func pushes(in c: ATTConversation, database: AttributeDatabase) -> [CapturedPush] {
        var configurationOf: [AttributeHandle: AttributeHandle] = [:]
        var serviceChanged: Set<AttributeHandle> = []
        for r in database.characteristics {
            if let cccd = r.clientConfigurationHandle { configurationOf[cccd] = r.valueHandle }
            if r.uuid == BluetoothUUID(0x2A05) { serviceChanged.insert(r.valueHandle) }
        }
        let start = c.pdus.first?.frame.timestamp ?? 0
        var subscriptions: [AttributeHandle: (ordinal: Int, at: Int64)] = [:]
        var result: [CapturedPush] = []
        for (i, pdu) in c.pdus.enumerated() {
            guard case let .success(decoded) = pdu.pdu else { continue }
            switch decoded {
            case let .writeRequest(w) where c.sender(of: i) == .client:
                guard let characteristic = configurationOf[w.handle], w.value.first.map({ $0 & 0x03 != 0 }) == true
                else { continue }
                let ordinal = subscriptions[characteristic].map { $0.ordinal + 1 } ?? 0
                subscriptions[characteristic] = (ordinal, pdu.frame.timestamp)
            case let .handleValueNotification(n):
                result.append(push(n.handle, n.value, false, pdu, subscriptions, start))
            case let .handleValueIndication(n):
                result.append(push(n.handle, n.value, true, pdu, subscriptions, start))
            default:
                continue
            }
        }
        return result.filter { !serviceChanged.contains($0.handle) }
    }

    static func push(_ handle: AttributeHandle, _ value: ArraySlice<UInt8>, _ indication: Bool, _ pdu: CapturedATTPDU,
                     _ subscriptions: [AttributeHandle: (ordinal: Int, at: Int64)], _ start: Int64) -> CapturedPush {
        let anchor: Anchor, from: Int64
        if let s = subscriptions[handle] {
            anchor = .subscription(handle, ordinal: s.ordinal)
            from = s.at
        } else {
            anchor = .connection
            from = start
        }
        return CapturedPush(handle: handle, value: Array(value), isIndication: indication, anchor: anchor,
                            offset: offset(pdu.frame.timestamp, since: from), record: pdu.frame.recordIndex)
    }

    /// A damaged capture's timestamps can be anything: negative gaps are none, and no push
    /// waits longer than a day.
    static func offset(_ timestamp: Int64, since origin: Int64) -> Duration {
        let (delta, overflow) = timestamp.subtractingReportingOverflow(origin)
        let day: Int64 = 86_400_000_000
        guard !overflow else { return timestamp > origin ? .microseconds(day) : .zero }
        return .microseconds(min(max(delta, 0), day))
    }
}

/// A write the captured client made and the captured server's answer to it.
struct CapturedWriteAnswer: Sendable {
    var handle: AttributeHandle
    var offset: Int
    var value: [UInt8]
    /// nil: accepted.
    var error: ATTErrorCode?
    /// Prepared parts refused part of the way: `value` is what was sent up to the refusal.
    var isPrefix: Bool

    struct Key: Hashable {
        var handle: AttributeHandle
        var offset: Int
        var value: [UInt8]
        var isPrefix: Bool
    }

    /// At most this many distinct writes are remembered: a year of gateway traffic writes
    /// the same few values again and again, and a hostile capture cannot grow memory past it.
    static let limit = 65_536

    /// Adds the answers to writes not seen before (the first answer to a write is the
    /// one given), up to ``limit``.
    static func merge(_ new: [CapturedWriteAnswer], into answers: inout [CapturedWriteAnswer], seen: inout Set<Key>) {
        for a in new where answers.count < limit
            && seen.insert(Key(handle: a.handle, offset: a.offset, value: a.value, isPrefix: a.isPrefix)).inserted {
            answers.append(a)
        }
    }

    static func answers(in c: ATTConversation) -> [CapturedWriteAnswer] {
        var responseTo: [Int: ATTPDU] = [:]
        for t in c.transactions {
            if let r = t.response, case let .success(pdu) = c.pdus[r].pdu { responseTo[t.request] = pdu }
        }
        var result: [CapturedWriteAnswer] = []
        var prepared: [(handle: AttributeHandle, offset: Int, value: [UInt8])] = []
        var preparedError: ATTErrorCode?
        for (i, pdu) in c.pdus.enumerated() where c.sender(of: i) == .client {
            guard case let .success(decoded) = pdu.pdu else { continue }
            switch decoded {
            case let .writeRequest(w):
                guard let response = responseTo[i] else { continue }
                var error: ATTErrorCode?
                if case let .errorResponse(e) = response { error = e.errorCode }
                result.append(CapturedWriteAnswer(handle: w.handle, offset: 0, value: Array(w.value), error: error,
                                                  isPrefix: false))
            case let .prepareWriteRequest(w):
                guard preparedError == nil else { continue }
                prepared.append((w.handle, Int(w.offset), Array(w.partValue)))
                if case let .errorResponse(e)? = responseTo[i] { preparedError = e.errorCode }
            case let .executeWriteRequest(e):
                defer { prepared = []; preparedError = nil }
                guard let first = prepared.first, prepared.allSatisfy({ $0.handle == first.handle }) else { continue }
                var value: [UInt8] = []
                var contiguous = true
                for p in prepared {
                    if p.offset != first.offset + value.count { contiguous = false }
                    value += p.value
                }
                guard contiguous else { continue }
                if let refused = preparedError {
                    result.append(CapturedWriteAnswer(handle: first.handle, offset: first.offset, value: value,
                                                      error: refused, isPrefix: true))
                } else if e.flags == .write, let response = responseTo[i] {
                    var error: ATTErrorCode?
                    if case let .errorResponse(r) = response { error = r.errorCode }
                    result.append(CapturedWriteAnswer(handle: first.handle, offset: first.offset, value: value,
                                                      error: error, isPrefix: false))
                }
            default:
                continue
            }
        }
        return result
    }
}
