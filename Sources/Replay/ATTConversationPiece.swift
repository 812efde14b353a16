/// A run of consecutive PDUs of one conversation, as ``ATTConversationPieceStream``
/// hands it out: a conversation too long to hold whole comes out in pieces, each cut
/// where no transaction (or, for client replay, no procedure) is left half done.
public struct ATTConversationPiece: Sendable {
    /// Which conversation of the capture this belongs to, numbered from 0 in the order
    /// the conversations opened.
    public var serial: Int
    /// The conversation's controller, handle and connection, with this piece's PDUs only,
    /// and in ``ATTConversation/mtusBefore`` the MTUs exchanged in earlier pieces.
    public var conversation: ATTConversation
    /// Index, in the whole conversation, of this piece's first PDU.
    public var offset: Int
    /// Whether the conversation ended with this piece (which may then hold no PDUs).
    public var isLast: Bool

    /// Whether this is the conversation's first piece.
    public var isFirst: Bool { offset == 0 }
}
