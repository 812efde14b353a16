import ATT
import Capture
import HCI

/// Splits a capture into ``ATTConversation``s: one per controller, connection handle and
/// connection (a handle reused after Disconnection Complete starts a new conversation).
///
/// This keeps every conversation of the capture in memory; ``ATTConversationStream``
/// (which ``ReplaySession`` reads) hands them out one at a time instead.
public enum ATTConversationCollector {
    /// Every conversation in capture order (by first PDU or connection event). Throws
    /// the reader's error for a damaged capture.
    public static func conversations(in reader: CaptureReader) throws(CaptureError) -> [ATTConversation] {
        var stream = ATTConversationStream(reader: reader)
        var all: [ATTConversation] = []
        while let c = try stream.next() { all.append(c) }
        return all
    }

    /// Reads a capture file's conversations.
    public static func conversations(path: String) throws(CaptureError) -> [ATTConversation] {
        try conversations(in: try CaptureReader(path: path))
    }
}
