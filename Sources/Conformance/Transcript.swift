import BluetoothCore

/// What one procedure (a test or a discovery walk) has exchanged so far, oldest first.
/// A procedure's next step is a function of its transcript alone, so a procedure keeps
/// no state of its own that could disagree with what was on the air.
struct Transcript: Sendable {
    enum Entry: Sendable {
        case pdu(ExchangedPDU)
        /// A wait for a notification or indication ran out.
        case pushWaitExpired
    }

    private(set) var entries: [Entry] = []
    /// Notifications and indications the procedure ignored: counted, never kept, so an
    /// IUT that floods them cannot grow a transcript.
    private(set) var ignoredPushes = 0

    mutating func ignoredPush() { ignoredPushes += 1 }
    /// What a reason says of the ignored pushes; empty when there were none.
    var droppedNote: String {
        ignoredPushes == 0 ? "" : " (\(ignoredPushes) notifications or indications the test did not wait for were ignored, not recorded)"
    }

    mutating func append(_ entry: Entry) { entries.append(entry) }
    mutating func sent(_ bytes: [UInt8]) { entries.append(.pdu(ExchangedPDU(.testerToIUT, bytes))) }
    mutating func received(_ bytes: [UInt8]) { entries.append(.pdu(ExchangedPDU(.iutToTester, bytes))) }

    /// The PDUs, both ways.
    var exchange: [ExchangedPDU] { entries.compactMap { if case .pdu(let p) = $0 { p } else { nil } } }
    /// What the IUT sent, oldest first.
    var received: [[UInt8]] { exchange.filter { $0.direction == .iutToTester }.map(\.bytes) }
    /// How many PDUs the tester sent.
    var sentCount: Int { exchange.filter { $0.direction == .testerToIUT }.count }
    /// The IUT's PDU when it is the newest entry.
    var lastReceived: [UInt8]? {
        if case .pdu(let p)? = entries.last, p.direction == .iutToTester { p.bytes } else { nil }
    }
    var pushWaitExpired: Bool { entries.contains { if case .pushWaitExpired = $0 { true } else { false } } }
}
