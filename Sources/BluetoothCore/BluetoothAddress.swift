/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// Stored most significant byte first, as people write it (`AA:BB:CC:DD:EE:FF`); on the
/// wire HCI carries it least significant byte first (Vol 4 Part E §5.2).
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant first.
    public let bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// The address as a 48-bit integer, for ordering and hashing.
    @inlinable
    public var rawValue: UInt64 {
        UInt64(bytes.0) << 40 | UInt64(bytes.1) << 32 | UInt64(bytes.2) << 24
            | UInt64(bytes.3) << 16 | UInt64(bytes.4) << 8 | UInt64(bytes.5)
    }

    @inlinable
    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8, _ b4: UInt8, _ b5: UInt8) {
        bytes = (b0, b1, b2, b3, b4, b5)
    }

    /// The low 48 bits of `rawValue`.
    @inlinable
    public init(rawValue: UInt64) {
        self.init(
            UInt8(truncatingIfNeeded: rawValue >> 40), UInt8(truncatingIfNeeded: rawValue >> 32),
            UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
            UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue))
    }

    /// Decodes the wire form: exactly 6 bytes, least significant first.
    @inlinable
    public init?(littleEndian wire: ArraySlice<UInt8>) {
        guard wire.count == 6 else { return nil }
        let s = wire.startIndex
        self.init(wire[s + 5], wire[s + 4], wire[s + 3], wire[s + 2], wire[s + 1], wire[s])
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var values: [UInt8] = []
        for part in parts {
            guard part.count == 2, let v = UInt8(part, radix: 16) else { return nil }
            values.append(v)
        }
        self.init(values[0], values[1], values[2], values[3], values[4], values[5])
    }

    /// The wire form, least significant byte first.
    public var littleEndianBytes: [UInt8] {
        [bytes.5, bytes.4, bytes.3, bytes.2, bytes.1, bytes.0]
    }

    /// `AA:BB:CC:DD:EE:FF`
    public var description: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(17)
        for (i, b) in [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5].enumerated() {
            if i > 0 { out.append(UInt8(ascii: ":")) }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func == (a: BluetoothAddress, b: BluetoothAddress) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public static func < (a: BluetoothAddress, b: BluetoothAddress) -> Bool { a.rawValue < b.rawValue }
}
