import BluetoothCore
import BluetoothCrypto

/// The Security Manager of one LE link (Vol 3 Part H), sans-I/O: no socket, thread or clock.
///
/// Feed it the SMP PDUs received on channel 0x0006, the user's answers and the link layer's
/// encryption outcomes, each with the current time; it appends PDUs to send and events to a
/// caller-owned ``SecurityManagerOutput``. The initiator is the central, the responder the
/// peripheral. After the 30 s SMP timeout (``deadline``, checked by ``tick(at:into:)`` and by
/// every input) it refuses everything until a new link, that is a new manager.
public struct SecurityManager: Sendable {
    public enum Role: Hashable, Sendable {
        /// The central: sends the Pairing Request and starts encryption.
        case initiator
        /// The peripheral: answers the Pairing Request and the controller's LTK request.
        case responder
    }

    public let role: Role
    public var configuration: SMPConfiguration
    public let localAddress: SMPAddress
    public let peerAddress: SMPAddress
    var random: any SMPRandomSource

    /// When the SMP timer expires, while a procedure runs.
    public internal(set) var deadline: MonotonicTime?
    /// True after the timeout: nothing is sent or accepted on this link any more.
    public internal(set) var isClosed = false
    /// True while a pairing procedure runs.
    public var isPairing: Bool { pairing != nil }

    var pairing: Pairing?
    var peerOOB: SMPOOBData?
    var localOOB: (data: SMPOOBData, keyPair: P256.KeyPair)?

    public init(role: Role, configuration: SMPConfiguration = SMPConfiguration(), localAddress: SMPAddress,
                peerAddress: SMPAddress, random: any SMPRandomSource = SystemRandomSource()) {
        self.role = role
        self.configuration = configuration
        self.localAddress = localAddress
        self.peerAddress = peerAddress
        self.random = random
    }

    // MARK: - Inputs

    /// Starts pairing. The initiator sends a Pairing Request; the responder sends a Security
    /// Request asking the central to pair. Nothing happens while a pairing runs or after the timeout.
    public mutating func start(at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        guard checkTimer(now, &output), pairing == nil else { return }
        switch role {
        case .initiator:
            sendPairingRequest(at: now, into: &output)
        case .responder:
            output.send(.securityRequest(SecurityRequest(authenticationRequirements: configuration.authenticationRequirements)))
            deadline = now + configuration.timeout
        }
    }

    /// One SMP PDU received on channel 0x0006.
    public mutating func receive(_ bytes: ArraySlice<UInt8>, at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        guard checkTimer(now, &output) else { return }
        let pdu: SMPPDU
        do {
            pdu = try SMPPDU(decoding: bytes)
        } catch {
            switch error.reason {
            case .empty: return
            case .unknownCode: fail(.commandNotSupported, at: now, into: &output)
            case .wrongLength: fail(.invalidParameters, at: now, into: &output)
            }
            return
        }
        if pairing != nil { deadline = now + configuration.timeout }
        do {
            try handle(pdu, at: now, into: &output)
        } catch {
            fail(error.reason, at: now, into: &output)
        }
    }

    /// The user's answer to ``SecurityManagerEvent/enterPasskey`` or
    /// ``SecurityManagerEvent/confirmNumericComparison(_:)``, or OOB data before pairing.
    public mutating func answer(_ answer: SecurityManagerAnswer, at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        guard checkTimer(now, &output) else { return }
        if case .oobData(let data) = answer {
            if pairing == nil { peerOOB = data }
            return
        }
        guard let state = pairing else { return }
        do throws(Abort) {
            pairing = try advance(state, on: answer, at: now, into: &output)
        } catch {
            fail(error.reason, at: now, into: &output)
        }
    }

    /// The link layer reports encryption on with the key the manager asked for (Encryption
    /// Change with status 0 and encryption enabled). Key distribution follows.
    /// Outside pairing (a stored bond encrypted the link) it only answers a pending Security
    /// Request: its timer stops.
    public mutating func encryptionChanged(at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        guard checkTimer(now, &output) else { return }
        if pairing == nil { deadline = nil }
        guard case .encrypting(let negotiated, let key)? = pairing else { return }
        deadline = now + configuration.timeout
        do {
            pairing = try beginKeyDistribution(negotiated, key, at: now, into: &output)
        } catch {
            fail(error.reason, at: now, into: &output)
        }
    }

    /// The link layer could not encrypt (Encryption Change with an error status, or the
    /// controller refused LE Enable Encryption). The pairing fails.
    public mutating func encryptionFailed(status: UInt8, at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        guard checkTimer(now, &output), case .encrypting? = pairing else { return }
        pairing = nil
        deadline = nil
        output.events.append(.failed(.encryptionFailed(status)))
    }

    /// Peripheral: the controller's LE Long Term Key Request. Answered with the STK or LTK
    /// of the pairing in progress; otherwise negatively (a stored bond is the caller's to look up).
    public mutating func longTermKeyRequested(ediv: UInt16, rand: UInt64, at now: MonotonicTime,
                                              into output: inout SecurityManagerOutput) {
        _ = checkTimer(now, &output)
        if role == .responder, case .encrypting(_, let key)? = pairing, ediv == 0, rand == 0 {
            output.events.append(.longTermKeyReply(key.key))
        } else {
            output.events.append(.longTermKeyNegativeReply)
        }
    }

    /// Checks the SMP timer; call it at ``deadline``.
    public mutating func tick(at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        _ = checkTimer(now, &output)
    }

    /// Our Secure Connections OOB data (r and C = f4(PKx, PKx, r, 0)), to hand to the peer
    /// over another channel before pairing. It fixes the key pair this link will pair with.
    public mutating func makeLocalOOBData() throws(CryptoFailure) -> SMPOOBData {
        if let existing = localOOB { return existing.data }
        let keyPair = try random.makeKeyPair()
        let r = try random.randomBytes(16)
        let pkx = Array(keyPair.publicKey.x.reversed())
        let c = try SecurityFunctions.f4(u: pkx, v: pkx, x: r, z: 0)
        guard let data = SMPOOBData(random: r, confirm: c) else { throw .invalidLength(field: "OOB", count: r.count) }
        localOOB = (data, keyPair)
        return data
    }

    // MARK: - Timer and failure

    /// False when SMP is closed (and closes it when the deadline has passed).
    mutating func checkTimer(_ now: MonotonicTime, _ output: inout SecurityManagerOutput) -> Bool {
        if isClosed { return false }
        if let d = deadline, now >= d {
            isClosed = true
            deadline = nil
            pairing = nil
            output.events.append(.failed(.timeout))
            return false
        }
        return true
    }

    /// Sends Pairing Failed and forgets the pairing; never an encryption request after this.
    mutating func fail(_ reason: PairingFailedReason, at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        output.send(.pairingFailed(PairingFailed(reason: reason)))
        pairing = nil
        deadline = nil
        output.events.append(.failed(.local(reason)))
    }

    mutating func send(_ pdu: SMPPDU, at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        output.send(pdu)
        deadline = now + configuration.timeout
    }

    /// `count` bytes from the injected source; a source that fails or returns the wrong
    /// count ends the pairing instead of trapping.
    mutating func randomBytes(_ count: Int) throws(Abort) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try random.randomBytes(count) } catch { throw Abort(.unspecifiedReason) }
        guard bytes.count == count else { throw Abort(.unspecifiedReason) }
        return bytes
    }

    /// A passkey in 0–999999, uniformly (4 random bytes, rejection above the last full million).
    mutating func randomPasskey() throws(Abort) -> UInt32 {
        if let fixed = configuration.fixedPasskey, fixed <= 999_999 { return fixed }
        while true {
            let b = try randomBytes(4)
            let v = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
            if v < 4_294_000_000 { return v % 1_000_000 }
        }
    }
}

/// A refusal inside a handler: the reason the Pairing Failed PDU carries.
struct Abort: Error {
    let reason: PairingFailedReason
    init(_ reason: PairingFailedReason) { self.reason = reason }
}

/// Crypto failures inside pairing end it with Unspecified Reason.
func crypto<T>(_ body: () throws(CryptoFailure) -> T) throws(Abort) -> T {
    do { return try body() } catch { throw Abort(.unspecifiedReason) }
}
