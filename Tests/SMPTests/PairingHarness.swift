import BluetoothCore
import BluetoothCrypto
@testable import SMP

/// Deterministic randomness (SplitMix64), so every pairing in the tests is reproducible.
struct SeededRandom: SMPRandomSource {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func randomBytes(_ count: Int) throws(CryptoFailure) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < count {
            let v = next()
            for i in 0..<8 where out.count < count { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
        }
        return out
    }

    mutating func makeKeyPair() throws(CryptoFailure) -> P256.KeyPair {
        while true {
            if let key = try? P256.PrivateKey(bigEndian: randomBytes(32)) { return try P256.keyPair(privateKey: key) }
        }
    }
}

let centralAddress = SMPAddress(BluetoothAddress(0xC1, 0x22, 0x33, 0x44, 0x55, 0x66), isRandom: true)
let peripheralAddress = SMPAddress(BluetoothAddress(0x00, 0x1B, 0xDC, 0x01, 0x02, 0x03), isRandom: false)

func identity(_ byte: UInt8, _ address: SMPAddress) -> SMPConfiguration.LocalIdentity {
    SMPConfiguration.LocalIdentity(identityResolvingKey: SMPKey(exactly: [UInt8](repeating: byte, count: 16)), address: address)
}

/// Our initiator and our responder joined by an in-memory channel, with a link layer that
/// encrypts when asked and a user who answers as told.
struct PairingHarness {
    enum Side: Hashable { case central, peripheral }

    var central: SecurityManager
    var peripheral: SecurityManager
    var now = MonotonicTime.zero
    var events: [Side: [SecurityManagerEvent]] = [.central: [], .peripheral: []]
    var sent: [Side: [[UInt8]]] = [.central: [], .peripheral: []]
    /// Changes a PDU in flight (a hostile channel).
    var tamper: (Side, [UInt8]) -> [UInt8] = { $1 }
    /// What each user answers to a numeric comparison.
    var numericAnswer: [Side: Bool] = [.central: true, .peripheral: true]
    /// The passkey both users type when neither device displays one.
    var typedPasskey: UInt32 = 424_242
    /// Users type passkeys by themselves (false: the test answers).
    var answersPasskeys = true
    /// A user who types a different passkey than the one shown.
    var wrongPasskey: [Side: UInt32] = [:]
    /// The link layer's encryptions: the key the central asked for and the key the peripheral answered.
    var encryptions: [(central: SMPKey, peripheral: SMPKey?)] = []

    /// Record a ``Snapshot`` of the receiving manager before every delivery, and of both
    /// managers when the link layer encrypts.
    var recordsSnapshots = false
    var snapshots: [Snapshot] = []

    /// A manager as it stood before an input: `next` is the PDU it then took (nil: none,
    /// the link layer was encrypting).
    struct Snapshot {
        var side: Side
        var manager: SecurityManager
        var next: [UInt8]?
    }

    private var displayed: UInt32?
    private var waitingEntry: Set<Side> = []
    private var queue: [Action] = []

    enum Action {
        case deliver(to: Side, [UInt8])
        case answer(Side, SecurityManagerAnswer)
        case encrypt(SMPKey)
    }

    init(central: SMPConfiguration, peripheral: SMPConfiguration, seed: UInt64 = 1) {
        self.central = SecurityManager(role: .initiator, configuration: central, localAddress: centralAddress,
                                       peerAddress: peripheralAddress, random: SeededRandom(state: seed))
        self.peripheral = SecurityManager(role: .responder, configuration: peripheral, localAddress: peripheralAddress,
                                          peerAddress: centralAddress, random: SeededRandom(state: seed &+ 1000))
    }

    /// The central starts pairing; everything runs until no side has anything left to do.
    mutating func pair() {
        var out = SecurityManagerOutput()
        central.start(at: now, into: &out)
        collect(out, from: .central)
        run()
    }

    mutating func run() {
        var steps = 0
        while !queue.isEmpty, steps < 1000 {
            steps += 1
            let action = queue.removeFirst()
            var out = SecurityManagerOutput()
            switch action {
            case .deliver(let side, let bytes):
                if recordsSnapshots { snapshots.append(Snapshot(side: side, manager: side == .central ? central : peripheral, next: bytes)) }
                if side == .central { central.receive(bytes[...], at: now, into: &out) } else { peripheral.receive(bytes[...], at: now, into: &out) }
                collect(out, from: side)
            case .answer(let side, let answer):
                if side == .central { central.answer(answer, at: now, into: &out) } else { peripheral.answer(answer, at: now, into: &out) }
                collect(out, from: side)
            case .encrypt(let key):
                if recordsSnapshots {
                    snapshots.append(Snapshot(side: .central, manager: central, next: nil))
                    snapshots.append(Snapshot(side: .peripheral, manager: peripheral, next: nil))
                }
                peripheral.longTermKeyRequested(ediv: 0, rand: 0, at: now, into: &out)
                let reply = out.events.compactMap { if case .longTermKeyReply(let k) = $0 { k } else { nil } }.first
                collect(out, from: .peripheral)
                encryptions.append((key, reply))
                var c = SecurityManagerOutput()
                if reply == key {
                    var p = SecurityManagerOutput()
                    peripheral.encryptionChanged(at: now, into: &p)
                    collect(p, from: .peripheral)
                    central.encryptionChanged(at: now, into: &c)
                } else {
                    central.encryptionFailed(status: 0x06, at: now, into: &c)   // PIN or Key Missing
                }
                collect(c, from: .central)
            }
        }
    }

    mutating func collect(_ out: SecurityManagerOutput, from side: Side) {
        let other: Side = side == .central ? .peripheral : .central
        for pdu in out.sentPDUs {
            sent[side, default: []].append(pdu)
            queue.append(.deliver(to: other, tamper(side, pdu)))
        }
        for event in out.events {
            events[side, default: []].append(event)
            switch event {
            case _ where !answersPasskeys && (event == .enterPasskey || { if case .displayPasskey = event { true } else { false } }()):
                break
            case .displayPasskey(let v):
                displayed = v
                for s in waitingEntry { queue.append(.answer(s, .passkey(wrongPasskey[s] ?? v))) }
                waitingEntry.removeAll()
            case .enterPasskey:
                let bothInput = central.pairing?.model == .passkeyEntry(.bothInput)
                    || peripheral.pairing?.model == .passkeyEntry(.bothInput)
                if let v = displayed {
                    queue.append(.answer(side, .passkey(wrongPasskey[side] ?? v)))
                } else if bothInput {
                    queue.append(.answer(side, .passkey(wrongPasskey[side] ?? typedPasskey)))
                } else {
                    waitingEntry.insert(side)
                }
            case .confirmNumericComparison, .confirmJustWorks:
                queue.append(.answer(side, .numericComparison(numericAnswer[side] ?? true)))
            case .startEncryption(let key, _, _, _):
                queue.append(.encrypt(key))
            default:
                break
            }
        }
    }

    func result(_ side: Side) -> PairingResult? {
        for e in events[side] ?? [] { if case .paired(let r) = e { return r } }
        return nil
    }

    func failure(_ side: Side) -> PairingFailure? {
        for e in events[side] ?? [] { if case .failed(let f) = e { return f } }
        return nil
    }

    func numbers(_ side: Side) -> [UInt32] {
        (events[side] ?? []).compactMap { if case .confirmNumericComparison(let v) = $0 { v } else { nil } }
    }

    var encryptionRequested: Bool {
        (events[.central] ?? []).contains { if case .startEncryption = $0 { true } else { false } }
            || (events[.peripheral] ?? []).contains { if case .longTermKeyReply = $0 { true } else { false } }
    }
}
