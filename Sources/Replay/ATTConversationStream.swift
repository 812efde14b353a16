import ATT
import Capture
import HCI

/// Reads a capture as a stream of whole ``ATTConversation``s: each is handed out once it
/// is over (Disconnection Complete, the handle reused, or the end of the capture), so
/// memory holds the conversations still open rather than the whole capture. A
/// conversation is held whole however long it is: replay reads
/// ``ATTConversationPieceStream`` instead, whose memory is bounded.
///
/// Conversations come out in the order of their first PDU, as
/// ``ATTConversationCollector`` sorts them: one that ends while an earlier-starting one
/// is still open waits for it. Captures of one connection at a time (and both ends of a
/// virtual link, which end together) therefore hold about one conversation at a time.
public struct ATTConversationStream {
    var pieces: ATTConversationPieceStream
    /// Ended conversations not yet handed out, sorted by first PDU.
    var finished: [ATTConversation] = []

    public init(reader: CaptureReader) {
        pieces = ATTConversationPieceStream(reader: reader, cut: .never)
    }

    public init(path: String) throws(CaptureError) {
        self.init(reader: try CaptureReader(path: path))
    }

    /// The next conversation, or nil at the end of the capture. Throws the reader's
    /// error for a damaged capture; the conversations before the damage came out already.
    public mutating func next() throws(CaptureError) -> ATTConversation? {
        while true {
            if let ready = releasable() { return ready }
            // Uncut, every piece is a whole conversation.
            guard let piece = try pieces.next() else {
                return finished.isEmpty ? nil : finished.removeFirst()
            }
            // A connection without ATT traffic is no conversation.
            let c = piece.conversation
            guard let start = c.pdus.first?.frame.recordIndex else { continue }
            let at = finished.firstIndex { ($0.pdus.first?.frame.recordIndex ?? 0) > start } ?? finished.endIndex
            finished.insert(c, at: at)
        }
    }

    /// The first ended conversation, if no conversation still to come started before it.
    mutating func releasable() -> ATTConversation? {
        guard let first = finished.first?.pdus.first?.frame.recordIndex else { return nil }
        if let pending = pieces.earliestPendingStart, pending < first { return nil }
        return finished.removeFirst()
    }
}
