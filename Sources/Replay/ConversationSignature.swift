import Capture

/// What a conversation's PDUs hash to, to recognise the mirrored copy of a conversation:
/// a btmon capture of both ends of a virtual link holds every PDU twice, once per
/// controller. Two independent 64-bit FNV-1a hashes over the PDUs (each prefixed by its
/// length, so that PDU boundaries count) and the PDU count, instead of the bytes, so that
/// remembering a conversation costs 24 bytes rather than its size.
struct ConversationSignature: Hashable, Sendable {
    var count: Int
    var first: UInt64
    var second: UInt64

    init(_ conversation: ATTConversation) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x84222325_cbf29ce4
        func mix(_ byte: UInt8) {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte ^ 0x5C)) &* 0x0000_0100_0000_01B3 ^ (b >> 29)
        }
        for pdu in conversation.pdus {
            let n = pdu.bytes.count
            mix(UInt8(truncatingIfNeeded: n))
            mix(UInt8(truncatingIfNeeded: n >> 8))
            mix(UInt8(truncatingIfNeeded: n >> 16))
            for byte in pdu.bytes { mix(byte) }
        }
        count = conversation.pdus.count
        first = a
        second = b
    }
}

/// The conversations replayed lately, by signature. A mirror is the same PDUs on another
/// controller while the original was open, so a window of recent conversations finds it,
/// and the same session repeated later or on the same controller (a sensor read every
/// minute) is not taken for one. An endless capture does not make the set grow.
struct RecentSignatures: Sendable {
    struct Seen: Sendable {
        var controller: UInt16
        var start: Int64
        var end: Int64
    }

    static let window = 4096
    var members: [ConversationSignature: Seen] = [:]
    var ring: [ConversationSignature] = []
    var next = 0

    /// False when the conversation mirrors a recent one; otherwise remembers it.
    mutating func insert(_ conversation: ATTConversation) -> Bool {
        let signature = ConversationSignature(conversation)
        let seen = Seen(controller: conversation.controller, start: conversation.pdus.first?.frame.timestamp ?? 0,
                        end: conversation.pdus.last?.frame.timestamp ?? 0)
        if let other = members[signature] {
            if other.controller != seen.controller, other.start <= seen.end, seen.start <= other.end { return false }
            members[signature] = seen
            return true
        }
        members[signature] = seen
        if ring.count < Self.window {
            ring.append(signature)
        } else {
            members.removeValue(forKey: ring[next])
            ring[next] = signature
            next = (next + 1) % Self.window
        }
        return true
    }
}
