import BluetoothCore
import BluetoothCrypto
import SMP

/// The Security Manager's own cost, with no link in between: what a pairing costs in CPU
/// on this machine, to set beside the time `smp.pairing.bumble` measures on a link.
enum SMPBenchmarks {
    static var all: [Benchmark] {
        [
            .throughput("smp.p256.keypair") { n in
                for _ in 0..<n { blackHole(try? P256.generateKeyPair()) }
            },
            .throughput("smp.p256.ecdh") { n in
                guard let ours = try? P256.generateKeyPair(), let theirs = try? P256.generateKeyPair() else { return }
                for _ in 0..<n { blackHole(try? P256.sharedSecret(privateKey: ours.privateKey, peer: theirs.publicKey)) }
            },
            // Both sides of one LE Secure Connections Just Works pairing with bonding (each
            // side's key pair, ECDH, f4/f5/f6, identity keys), PDUs handed over in memory.
            .throughput("smp.pairing.memory.justworks") { n in
                // A pairing that stopped early would time less than a pairing.
                for _ in 0..<n { precondition(pairJustWorks(), "the in-memory pairing did not complete") }
            },
        ]
    }

    static let central = SMPAddress(BluetoothAddress(0xC1, 0x22, 0x33, 0x44, 0x55, 0x66), isRandom: true)
    static let peripheral = SMPAddress(BluetoothAddress(0xC0, 0x1B, 0xDC, 0x01, 0x02, 0x03), isRandom: true)

    static func configuration(_ byte: UInt8, _ address: SMPAddress) -> SMPConfiguration {
        guard let irk = SMPKey([UInt8](repeating: byte, count: 16)) else { return SMPConfiguration() }
        return SMPConfiguration(identity: SMPConfiguration.LocalIdentity(identityResolvingKey: irk, address: address))
    }

    /// One pairing; true when both sides reported it done.
    static func pairJustWorks() -> Bool {
        var initiator = SecurityManager(role: .initiator, configuration: configuration(1, central),
                                        localAddress: central, peerAddress: peripheral)
        var responder = SecurityManager(role: .responder, configuration: configuration(2, peripheral),
                                        localAddress: peripheral, peerAddress: central)
        let now = MonotonicTime.zero
        // PDUs in flight, in order: (to the initiator, bytes).
        var inFlight: [(toInitiator: Bool, pdu: [UInt8])] = []
        var output = SecurityManagerOutput()
        var paired = 0
        var encryptWith: SMPKey?
        func take(fromInitiator: Bool) {
            for pdu in output.sentPDUs { inFlight.append((!fromInitiator, pdu)) }
            for event in output.events {
                switch event {
                case .paired: paired += 1
                case .startEncryption(let key, _, _, _): encryptWith = key
                default: break
                }
            }
            output.removeAll()
        }
        initiator.start(at: now, into: &output)
        take(fromInitiator: true)
        var handled = 0
        while handled < inFlight.count, handled < 64 {
            let (toInitiator, pdu) = inFlight[handled]
            handled += 1
            if toInitiator {
                initiator.receive(pdu[...], at: now, into: &output)
                take(fromInitiator: true)
            } else {
                responder.receive(pdu[...], at: now, into: &output)
                take(fromInitiator: false)
            }
            if let key = encryptWith {
                // The link layer: the responder answers the LTK request, then both sides see encryption on.
                encryptWith = nil
                responder.longTermKeyRequested(ediv: 0, rand: 0, at: now, into: &output)
                guard output.events == [.longTermKeyReply(key)] else { return false }
                output.removeAll()
                responder.encryptionChanged(at: now, into: &output)
                take(fromInitiator: false)
                initiator.encryptionChanged(at: now, into: &output)
                take(fromInitiator: true)
            }
        }
        return paired == 2
    }
}
