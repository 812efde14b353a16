// fuzz-modules: CCrypto BluetoothCore BluetoothCrypto SMP
// libFuzzer target for the SMP PDU decoder and two Security Managers joined by a channel
// the input controls. The first byte picks the IO capabilities and options of both sides;
// then each step is one op byte and a length-prefixed chunk: deliver the next queued PDU
// (XORed with the chunk), inject the chunk as a PDU, answer, encrypt, fail encryption,
// an LTK request, or let time pass. Every chunk also goes through the decoder on its own.
// Nothing may trap; every PDU sent must decode at its exact length; no encryption request
// may follow a failure of the same pairing; nothing but an LTK negative reply comes out
// of a closed manager.
import SMP

/// Deterministic randomness (SplitMix64) so a crashing input reproduces.
struct FuzzRandom: SMPRandomSource {
    var state: UInt64
    mutating func randomBytes(_ count: Int) throws(CryptoFailure) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for i in 0..<8 where out.count < count { out.append(UInt8(truncatingIfNeeded: z >> (8 * UInt64(i)))) }
        }
        return out
    }
    mutating func makeKeyPair() throws(CryptoFailure) -> P256.KeyPair {
        while true {
            if let key = try? P256.PrivateKey(bigEndian: randomBytes(32)) { return try P256.keyPair(privateKey: key) }
        }
    }
}

let a = SMPAddress(BluetoothAddress(0xC1, 1, 2, 3, 4, 5), isRandom: true)
let b = SMPAddress(BluetoothAddress(0x00, 6, 7, 8, 9, 10), isRandom: false)
let ioCaps: [IOCapability] = [.displayOnly, .displayYesNo, .keyboardOnly, .noInputNoOutput, .keyboardDisplay]

func configuration(_ bits: UInt8, identity: SMPAddress) -> SMPConfiguration {
    SMPConfiguration(ioCapability: ioCaps[Int(bits & 0x07) % 5], requiresMITM: bits & 0x08 != 0,
                     secureConnections: bits & 0x10 == 0, minimumKeySize: 7,
                     localKeys: [.encKey, .idKey, .signKey, .linkKey], peerKeys: [.encKey, .idKey, .signKey, .linkKey],
                     identity: .init(identityResolvingKey: SMPKey([UInt8](repeating: bits, count: 16))!, address: identity))
}

/// Checks one manager's output and queues its PDUs for the other side.
func check(_ out: SecurityManagerOutput, closed: Bool, failed: inout Bool, queue: inout [[UInt8]]) {
    // A closed manager sends nothing; the only thing it still says is no to an LTK request.
    if closed, !out.pdus.isEmpty || out.events.contains(where: { $0 != .longTermKeyNegativeReply }) {
        fatalError("output from a closed Security Manager")
    }
    for range in out.pdus {
        let pdu = Array(out.bytes(of: range))
        guard pdu.count <= SMPPDU.mtu, let decoded = try? SMPPDU(decoding: pdu), decoded.encoded == pdu else {
            fatalError("sent an SMP PDU that does not decode: \(pdu)")
        }
        if case .pairingRequest = decoded { failed = false }
        if case .pairingResponse = decoded { failed = false }
        queue.append(pdu)
    }
    for event in out.events {
        switch event {
        case .failed: failed = true
        case .startEncryption, .longTermKeyReply:
            if failed { fatalError("encryption requested after the pairing failed") }
        default: break
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let setup = bytes.first else { return 0 }
    var central = SecurityManager(role: .initiator, configuration: configuration(setup, identity: a), localAddress: a,
                                  peerAddress: b, random: FuzzRandom(state: UInt64(setup)))
    var peripheral = SecurityManager(role: .responder, configuration: configuration(setup >> 4 | setup << 4, identity: b),
                                     localAddress: b, peerAddress: a, random: FuzzRandom(state: UInt64(setup) + 99))
    var toCentral: [[UInt8]] = []
    var toPeripheral: [[UInt8]] = []
    var centralFailed = false, peripheralFailed = false
    var now = MonotonicTime.zero
    var out = SecurityManagerOutput()
    central.start(at: now, into: &out)
    check(out, closed: false, failed: &centralFailed, queue: &toPeripheral)
    var index = 1
    while index + 1 < bytes.count {
        let op = bytes[index]
        let length = Int(bytes[index + 1])
        let chunk = Array(bytes[min(bytes.count, index + 2)..<min(bytes.count, index + 2 + length)])
        index += 2 + length
        if let pdu = try? SMPPDU(decoding: chunk) { _ = "\(pdu)"; _ = pdu.encoded }
        let toC = op & 0x80 != 0   // which manager this step acts on
        var manager = toC ? central : peripheral
        let wasClosed = manager.isClosed
        out.removeAll()
        switch op & 0x0F {
        case 0, 1, 2, 3:
            // Deliver the next PDU, mutated by the chunk.
            if toC, !toCentral.isEmpty {
                var pdu = toCentral.removeFirst()
                for (i, x) in chunk.enumerated() where i < pdu.count { pdu[i] ^= x }
                manager.receive(pdu[...], at: now, into: &out)
            } else if !toC, !toPeripheral.isEmpty {
                var pdu = toPeripheral.removeFirst()
                for (i, x) in chunk.enumerated() where i < pdu.count { pdu[i] ^= x }
                manager.receive(pdu[...], at: now, into: &out)
            }
        case 4: manager.receive(chunk[...], at: now, into: &out)
        case 5:
            let v = chunk.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            manager.answer(.passkey(v), at: now, into: &out)
        case 6: manager.answer(.numericComparison(chunk.first.map { $0 & 1 == 1 } ?? true), at: now, into: &out)
        case 7: manager.answer(.refuse, at: now, into: &out)
        case 8: manager.encryptionChanged(at: now, into: &out)
        case 9: manager.encryptionFailed(status: chunk.first ?? 0x3D, at: now, into: &out)
        case 10: manager.longTermKeyRequested(ediv: 0, rand: 0, at: now, into: &out)
        case 11:
            now = now + .milliseconds(Int(chunk.first ?? 0) * 250)
            manager.tick(at: now, into: &out)
        case 12: manager.start(at: now, into: &out)
        default:
            // Our OOB data, handed to the other side before it pairs.
            if let oob = try? manager.makeLocalOOBData() {
                var ignored = SecurityManagerOutput()
                if toC { peripheral.answer(.oobData(oob), at: now, into: &ignored) } else { central.answer(.oobData(oob), at: now, into: &ignored) }
            }
        }
        if toC {
            check(out, closed: wasClosed, failed: &centralFailed, queue: &toPeripheral)
            central = manager
        } else {
            check(out, closed: wasClosed, failed: &peripheralFailed, queue: &toCentral)
            peripheral = manager
        }
    }
    return 0
}
