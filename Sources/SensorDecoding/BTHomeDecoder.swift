import BluetoothCore
import BluetoothCrypto

/// Decodes one BTHome v2 device's advertisements (service data UUID 0xFCD2), holding its
/// bind key and the last counter it accepted.
///
/// Encrypted advertisements are AES-CCM (bthome.io/encryption): the service data is the
/// device information byte, the ciphertext, a 4-byte counter (little endian) and a 4-byte
/// MIC; the nonce is the device address (6 bytes, most significant first), the UUID as sent
/// (D2 FC), the device information byte and the counter. An advertisement is accepted only
/// when its MIC verifies and its counter is above the last one accepted, which stops a
/// recorded advertisement being replayed; the last accepted advertisement repeated byte for
/// byte is ``BTHomeResult/duplicate``. A device that restarts its counter (a new battery)
/// needs ``resetCounter()``.
public struct BTHomeDecoder: Hashable, Sendable {
    /// The 16-byte AES key, or nil for a device that sends plaintext.
    public let bindKey: [UInt8]?
    /// The counter of the last accepted encrypted advertisement; persist it to keep replay
    /// protection across restarts.
    public private(set) var lastCounter: UInt32?
    /// The last accepted encrypted service data and its advertiser, to tell a repeat from a replay.
    private var lastAccepted: AcceptedFrame?

    private struct AcceptedFrame: Hashable, Sendable {
        let serviceData: [UInt8]
        let address: BluetoothAddress
    }

    /// The service data UUID BTHome v2 advertises under.
    public static let serviceUUID = BluetoothUUID(0xFCD2)

    /// A decoder for one device; `bindKey` must be 16 bytes. `lastCounter` restores replay
    /// protection saved from an earlier run.
    public init(bindKey: [UInt8]? = nil, lastCounter: UInt32? = nil) throws(SensorDecodingError) {
        if let bindKey, bindKey.count != 16 {
            throw SensorDecodingError(.invalidBindKeyLength(bindKey.count), offset: 0)
        }
        self.bindKey = bindKey
        self.lastCounter = lastCounter
    }

    /// Forgets the last counter, for a device known to have restarted its count.
    public mutating func resetCounter() {
        lastCounter = nil
        lastAccepted = nil
    }

    /// Decodes `serviceData` (the bytes after the 0xFCD2 UUID) advertised by `address`.
    ///
    /// Throws for a wrong key or forged bytes (``SensorDecodingError/Reason/authenticationFailed``),
    /// a replayed counter, an encrypted advertisement without a key, another version, and
    /// truncated or malformed objects. An unknown object id is not thrown: the packet holds
    /// the objects before it and ``BTHomePacket/stoppedAt``.
    public mutating func decode(serviceData: ArraySlice<UInt8>, address: BluetoothAddress)
        throws(SensorDecodingError) -> BTHomeResult {
        var reader = PayloadReader(serviceData)
        let info = BTHomeDeviceInfo(rawValue: try reader.u8("device information"))
        if !info.isEncrypted, bindKey != nil { return .downgradeAlarm(serviceData: Array(serviceData)) }
        guard info.version == 2 else { throw SensorDecodingError(.unsupportedVersion(info.version), offset: 0) }
        var carried: BluetoothAddress?
        if info.carriesAddress {
            carried = BluetoothAddress(littleEndian: try reader.slice(6, "address"))
        }
        guard info.isEncrypted else {
            let base = reader.position
            let (objects, stop) = try BTHomeObjectDecoding.objects(reader.rest(), base: base)
            return .accepted(BTHomePacket(deviceInfo: info, address: carried, counter: nil, objects: objects, stoppedAt: stop))
        }
        guard let bindKey else { throw SensorDecodingError(.missingBindKey, offset: 0) }
        // Identical to bytes already authenticated from this address, so its MIC would verify.
        if let last = lastAccepted, last.address == address, last.serviceData.elementsEqual(serviceData) {
            return .duplicate
        }
        let payloadOffset = reader.position
        guard reader.remaining >= 8 else {
            throw reader.failure(.truncated(field: "counter and MIC", needed: 8, available: reader.remaining))
        }
        let ciphertext = try reader.slice(reader.remaining - 8, "ciphertext")
        let counterOffset = reader.position
        let counterBytes = try reader.slice(4, "counter")
        let micOffset = reader.position
        let mic = try reader.slice(4, "MIC")
        let counter = counterBytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }

        let device = carried ?? address
        let nonce = Array(device.littleEndianBytes.reversed()) + [0xD2, 0xFC, info.rawValue] + Array(counterBytes)
        let plaintext: [UInt8]
        do {
            plaintext = try AESCCM.open(key: bindKey, nonce: nonce, ciphertext: Array(ciphertext), tag: Array(mic))
        } catch .authenticationFailed {
            throw SensorDecodingError(.authenticationFailed, offset: micOffset)
        } catch {
            throw SensorDecodingError(.crypto("\(error)"), offset: micOffset)
        }
        // Checked after the MIC, so that only an authentic advertisement is called a replay
        // (a forgery is an authentication failure) and a forgery never moves the counter.
        if let lastCounter, counter <= lastCounter {
            throw SensorDecodingError(.replayedCounter(counter: counter, lastAccepted: lastCounter), offset: counterOffset)
        }
        // Authentic, so its counter is spent even if its objects turn out malformed.
        lastCounter = counter
        lastAccepted = AcceptedFrame(serviceData: Array(serviceData), address: address)
        // CCM is a stream mode: plaintext byte i sits where ciphertext byte i was.
        let (objects, stop) = try BTHomeObjectDecoding.objects(plaintext[...], base: payloadOffset)
        return .accepted(BTHomePacket(deviceInfo: info, address: carried, counter: counter, objects: objects, stoppedAt: stop))
    }

    /// Convenience for whole arrays.
    public mutating func decode(serviceData: [UInt8], address: BluetoothAddress) throws(SensorDecodingError) -> BTHomeResult {
        try decode(serviceData: serviceData[...], address: address)
    }
}

extension BTHomeDecoder: CustomStringConvertible, CustomDebugStringConvertible {
    /// Never shows the bind key, so that logging a decoder cannot leak it.
    public var description: String {
        "BTHomeDecoder(bindKey: \(bindKey == nil ? "none" : "<16 bytes>"), lastCounter: \(lastCounter.map(String.init) ?? "none"))"
    }

    /// The same as ``description``: no bind key.
    public var debugDescription: String { description }
}
