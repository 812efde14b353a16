/// Which conversations of a capture replay takes: those on the chosen connection handle,
/// without the mirrored copies btmon records of both ends of a virtual link. For readers
/// of whole conversations (``ATTConversationStream``), such as a live replay.
public struct ConversationSelection: Sendable {
    public let connectionHandle: UInt16?
    var recent = RecentSignatures()

    public init(connectionHandle: UInt16? = nil) {
        self.connectionHandle = connectionHandle
    }

    /// Whether `conversation` is replayed; call it once per conversation, in capture order.
    public mutating func admits(_ conversation: ATTConversation) -> Bool {
        ReplaySession.selected(conversation, handle: connectionHandle, recent: &recent)
    }
}
