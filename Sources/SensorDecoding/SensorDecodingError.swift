import BluetoothCore

/// Why bytes from a peer could not be decoded: the reason, and the byte offset it refers to.
///
/// Offsets count from the first byte handed to the decoder: the first byte of a
/// characteristic value, or of service data after its UUID (BTHome's device information
/// byte, Eddystone's frame type), or of manufacturer data after the company identifier.
public struct SensorDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Hashable, Sendable {
        /// A field needs more bytes than are left.
        case truncated(field: String, needed: Int, available: Int)
        /// Bytes follow the end of a fixed-length value.
        case trailingBytes(count: Int)
        /// A field holds a value its specification reserves or forbids.
        case invalidValue(field: String, value: UInt64)
        /// Text is not valid UTF-8.
        case invalidUTF8(field: String)
        /// A BTHome object id this decoder does not know; BTHome receivers stop there, since
        /// the object's length is unknown (bthome.io/format).
        case unknownObjectID(UInt8)
        /// A BTHome device information byte with a version other than 2.
        case unsupportedVersion(UInt8)
        /// An Eddystone frame type (or TLM version) this decoder does not read.
        case unsupportedFrame(UInt8)
        /// The bytes are another format (for example Apple manufacturer data that is not an iBeacon).
        case notThisFormat(String)
        /// An encrypted BTHome advertisement from a device that has no bind key configured.
        case missingBindKey
        /// A BTHome bind key that is not 16 bytes.
        case invalidBindKeyLength(Int)
        /// The MIC does not verify: a wrong bind key, or altered or forged bytes.
        case authenticationFailed
        /// An authentic BTHome advertisement whose counter is not above the last accepted one.
        case replayedCounter(counter: UInt32, lastAccepted: UInt32)
        /// libcrypto refused.
        case crypto(String)
    }

    /// What was wrong.
    public let reason: Reason
    /// The byte offset of the field at fault.
    public let offset: Int

    /// `reason` at byte `offset`.
    public init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The reason in words, then the offset.
    public var description: String {
        let what: String
        switch reason {
        case let .truncated(field, needed, available): what = "\(field): needs \(needed) bytes, \(available) left"
        case let .trailingBytes(count): what = "\(count) unexpected trailing bytes"
        case let .invalidValue(field, value): what = "\(field): invalid value \(value)"
        case let .invalidUTF8(field): what = "\(field): not UTF-8"
        case let .unknownObjectID(id): what = "unknown BTHome object id 0x\(hexString(id, digits: 2))"
        case let .unsupportedVersion(version): what = "unsupported BTHome version \(version)"
        case let .unsupportedFrame(type): what = "unsupported frame type 0x\(hexString(type, digits: 2))"
        case let .notThisFormat(format): what = "not \(format)"
        case .missingBindKey: what = "encrypted, and no bind key is configured"
        case let .invalidBindKeyLength(count): what = "bind key is \(count) bytes, not 16"
        case .authenticationFailed: what = "MIC does not verify (wrong bind key or altered data)"
        case let .replayedCounter(counter, last): what = "replayed counter \(counter) (last accepted \(last))"
        case let .crypto(detail): what = "libcrypto: \(detail)"
        }
        return "\(what) at offset \(offset)"
    }
}
