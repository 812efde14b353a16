import HCI
import SMP
import Synchronization

/// One question of a pairing for the user, from a ``PairingAgent``: show a passkey, type
/// one, or confirm that both devices show the same number.
///
/// Answer it once (later answers are ignored) with ``respond(passkey:)``,
/// ``confirm(_:)`` or ``refuse()``. A request left unanswered fails its pairing when the
/// Security Manager's 30 s timer runs out (Vol 3 Part H §3.4); it never holds the link.
public struct PairingRequest: Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Show these six digits for the user to type on the peer; nothing to answer.
        case displayPasskey(UInt32)
        /// Ask the user for the six digits the peer shows; answer with ``respond(passkey:)``.
        case enterPasskey
        /// Ask the user whether the peer shows these six digits too; answer with ``confirm(_:)``.
        case confirmNumber(UInt32)
        /// Ask the user whether to pair with the peer at all (Just Works, which cannot
        /// tell a man in the middle; asked only with ``PairingConfiguration/confirmsJustWorks``);
        /// answer with ``accept()`` or ``refuse()``.
        case acceptJustWorks
    }

    public let kind: Kind
    /// The device we are pairing with, as the link was made.
    public let peerAddress: BluetoothAddress
    let reply: PairingReply

    init(kind: Kind, peerAddress: BluetoothAddress, reply: PairingReply) {
        self.kind = kind
        self.peerAddress = peerAddress
        self.reply = reply
    }

    /// Whether the pairing waits for an answer (every kind but ``Kind/displayPasskey(_:)``).
    public var needsAnswer: Bool {
        if case .displayPasskey = kind { return false }
        return true
    }

    /// Answers ``Kind/enterPasskey`` with the digits typed (0–999999; anything larger
    /// fails the pairing with Passkey Entry Failed).
    public func respond(passkey: UInt32) { reply.send(.passkey(passkey)) }

    /// Answers ``Kind/confirmNumber(_:)``: true when both devices show the same number.
    /// False fails the pairing with Numeric Comparison Failed.
    public func confirm(_ matches: Bool) { reply.send(.numericComparison(matches)) }

    /// Accepts ``Kind/acceptJustWorks`` (or confirms a number): the same as `confirm(true)`.
    public func accept() { confirm(true) }

    /// Declines: the pairing fails (Passkey Entry Failed or Numeric Comparison Failed).
    public func refuse() { reply.send(.refuse) }

    /// Whether an answer was given already (by this copy or another).
    public var isAnswered: Bool { reply.isAnswered }

    /// Six digits with leading zeros, as users see a passkey.
    public static func digits(_ value: UInt32) -> String {
        let text = String(value % 1_000_000)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    public var description: String {
        switch kind {
        case .displayPasskey(let value): "pairing with \(peerAddress): enter \(Self.digits(value)) on the peer"
        case .enterPasskey: "pairing with \(peerAddress): enter the passkey the peer shows"
        case .confirmNumber(let value): "pairing with \(peerAddress): does the peer show \(Self.digits(value))?"
        case .acceptJustWorks: "pairing with \(peerAddress) (Just Works, no MITM protection): accept?"
        }
    }
}

/// Where one request's answer goes: the host that asked, once.
final class PairingReply: Sendable {
    private let answered = Mutex(false)
    private let deliver: @Sendable (SecurityManagerAnswer) -> Void

    init(_ deliver: @escaping @Sendable (SecurityManagerAnswer) -> Void) {
        self.deliver = deliver
    }

    var isAnswered: Bool { answered.withLock { $0 } }

    func send(_ answer: SecurityManagerAnswer) {
        let first = answered.withLock { answered -> Bool in
            defer { answered = true }
            return !answered
        }
        if first { deliver(answer) }
    }
}
