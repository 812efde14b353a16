// fuzz-modules: BluetoothCore CCrypto BluetoothCrypto SensorDecoding
// libFuzzer target for every SensorDecoding decoder. The whole input goes to each
// characteristic value format (with and without a scale) and to its encoding (a `/set` payload), to Eddystone, iBeacon and raw
// decoding, and to BTHome as service data, keyless and keyed. Then the input after its first
// byte is taken as a BTHome object list and sent twice: as plaintext to a keyless decoder
// and AES-CCM sealed to a keyed one. Nothing may trap; both must give the same objects (or
// the same error at the same offset), since CCM keeps byte positions; the sealed
// advertisement sent again must be a duplicate, and other bytes at its counter a replay;
// every number must print as JSON.
import BluetoothCore
import BluetoothCrypto
import SensorDecoding

let key: [UInt8] = Array(0x10...0x1F)
let device = BluetoothAddress(0x54, 0x48, 0xE6, 0x8F, 0x80, 0xA5)

/// Every number in a value prints as text Swift reads back as a number.
func checkNumbers(_ value: FieldValue) {
    switch value {
    case let .number(n):
        guard Double(n.description) != nil else { fatalError("\(n.significand)e\(n.exponent) printed as \(n)") }
    case let .list(items): items.forEach(checkNumbers)
    default: break
    }
}

func check(_ value: DecodedValue) {
    checkNumbers(value.value)
    value.fields.forEach { checkNumbers($0.value) }
    _ = value.json(ts: 1_796_042_144.06, rssi: -61, via: "fuzz")
}

func check(_ readings: [DecodedReading]) {
    readings.forEach { check($0.value) }
    guard Set(readings.map(\.key)).count == readings.count else { fatalError("duplicate keys \(readings.map(\.key))") }
}

/// The outcome of a BTHome decode, comparable across the plaintext and sealed forms.
enum Outcome: Equatable {
    case objects([BTHomeObject], SensorDecodingError?)
    case failed(SensorDecodingError)
    case alarm
    case duplicate
}

func outcome(_ decoder: inout BTHomeDecoder, _ data: [UInt8]) -> Outcome {
    do {
        switch try decoder.decode(serviceData: data, address: device) {
        case let .accepted(packet):
            check(packet.readings)
            return .objects(packet.objects, packet.stoppedAt)
        case .downgradeAlarm: return .alarm
        case .duplicate: return .duplicate
        }
    } catch {
        return .failed(error)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSensorDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for format in ValueFormat.allCases {
        // The same bytes as a `/set` payload: refused or encoded, never a trap; an encoded
        // value is as long as the format says.
        if let encoded = try? ValueEncoding.bytes(bytes, format: format) {
            let width: Int? = switch format {
            case .u8: 1
            case .u16le, .s16le: 2
            case .u32le, .s32le, .float32le: 4
            default: nil
            }
            if let width, encoded.count != width { fatalError("\(format) encoded to \(encoded.count) bytes") }
        }
        for scale in [nil, 0.1, 1e300] as [Double?] {
            if let value = try? CharacteristicValueDecoder(format: format, scale: scale, unit: "u\"nit").decode(bytes) { check(value) }
        }
    }
    if let frame = try? EddystoneFrame(serviceData: bytes) { check(frame.readings) }
    if let beacon = try? IBeacon(companyID: IBeacon.companyID, data: bytes) { check(beacon.readings) }
    check(RawAdvertisementData(serviceData: [BluetoothUUID(0xFCD2): bytes], manufacturerData: [0xFFFF: bytes]).readings)

    guard var keyless = try? BTHomeDecoder(), var keyed = try? BTHomeDecoder(bindKey: key) else { return 0 }
    _ = outcome(&keyless, bytes)
    _ = outcome(&keyed, bytes)

    // The same objects in plaintext and sealed under the key, at a counter from the input.
    guard let first = bytes.first else { return 0 }
    let objects = Array(bytes.dropFirst())
    let counter: [UInt8] = [first, 0, 0, 1]
    let nonce = Array(device.littleEndianBytes.reversed()) + [0xD2, 0xFC, 0x41] + counter
    guard let sealed = try? AESCCM.seal(key: key, nonce: nonce, plaintext: objects, tagLength: 4) else {
        fatalError("seal refused \(objects.count) bytes")
    }
    let encrypted: [UInt8] = [0x41] + sealed.ciphertext + counter + sealed.tag
    var plainDecoder = keyless
    var sealedDecoder = keyed
    sealedDecoder.resetCounter()
    let plain = outcome(&plainDecoder, [0x40] + objects)
    let opened = outcome(&sealedDecoder, encrypted)
    guard plain == opened else { fatalError("plaintext gave \(plain), sealed gave \(opened)") }
    guard outcome(&sealedDecoder, encrypted) == .duplicate else { fatalError("a repeated advertisement was not a duplicate") }
    // Sealed again at the same counter, with one more byte: authentic, but not above the last counter.
    let longer = objects + [first]
    if let resealed = try? AESCCM.seal(key: key, nonce: nonce, plaintext: longer, tagLength: 4) {
        let replayed: [UInt8] = [0x41] + resealed.ciphertext + counter + resealed.tag
        guard case let .failed(error) = outcome(&sealedDecoder, replayed), case .replayedCounter = error.reason else {
            fatalError("a replayed counter was not refused")
        }
    }
    // Plaintext to a keyed decoder is always the alarm, never readings.
    guard outcome(&sealedDecoder, [0x40] + objects) == .alarm else { fatalError("downgrade not raised") }
    return 0
}
