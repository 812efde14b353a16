/// A Bluetooth UUID in its 16-, 32- or 128-bit form (Core Spec Vol 3 Part B §2.5.1).
///
/// Named `BluetoothUUID` rather than `UUID` so that it never collides with
/// `Foundation.UUID` in files that import both.
///
/// Equality and hashing compare the full 128-bit value, so `0x180D` equals
/// `0000180D-0000-1000-8000-00805F9B34FB`, as the spec requires. The width the UUID
/// was created or decoded with is kept, so re-encoding is byte-identical.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The form a UUID takes on the wire.
    public enum Width: UInt8, Hashable, Sendable {
        case bits16 = 2
        case bits32 = 4
        case bits128 = 16
    }

    /// Most significant 64 bits of the 128-bit value.
    public let high: UInt64
    /// Least significant 64 bits of the 128-bit value.
    public let low: UInt64
    /// The declared width.
    public let width: Width

    /// The Bluetooth Base UUID, 00000000-0000-1000-8000-00805F9B34FB.
    public static let base = BluetoothUUID(high: 0x0000_0000_0000_1000, low: 0x8000_0080_5F9B_34FB)

    @inlinable
    public init(_ value: UInt16) {
        high = UInt64(value) << 32 | 0x1000
        low = Self.base.low
        width = .bits16
    }

    /// A 32-bit UUID. Values that fit in 16 bits still keep the 32-bit width.
    @inlinable
    public init(uint32 value: UInt32) {
        high = UInt64(value) << 32 | 0x1000
        low = Self.base.low
        width = .bits32
    }

    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
        width = .bits128
    }

    /// Decodes the little-endian wire form: 2, 4 or 16 bytes.
    @inlinable
    public init?(littleEndian bytes: ArraySlice<UInt8>) {
        let s = bytes.startIndex
        switch bytes.count {
        case 2:
            self.init(UInt16(bytes[s]) | UInt16(bytes[s + 1]) << 8)
        case 4:
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(bytes[s + i]) << (8 * UInt32(i)) }
            self.init(uint32: v)
        case 16:
            var lo: UInt64 = 0, hi: UInt64 = 0
            for i in 0..<8 { lo |= UInt64(bytes[s + i]) << (8 * UInt64(i)) }
            for i in 0..<8 { hi |= UInt64(bytes[s + 8 + i]) << (8 * UInt64(i)) }
            self.init(high: hi, low: lo)
        default:
            return nil
        }
    }

    /// Parses "180D", "0x180D", "0000180D" (32-bit) or the full 36-character form.
    public init?(_ text: String) {
        var s = Substring(text)
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        if s.count == 4, let v = UInt16(s, radix: 16) {
            self.init(v)
            return
        }
        if s.count == 8, let v = UInt32(s, radix: 16) {
            self.init(uint32: v)
            return
        }
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        let lengths = parts.map(\.count)
        let hexOnly = s.filter { $0 != "-" }
        guard (lengths == [8, 4, 4, 4, 12] || (parts.count == 1 && s.count == 32)),
              hexOnly.count == 32,
              let hi = UInt64(hexOnly.prefix(16), radix: 16),
              let lo = UInt64(hexOnly.suffix(16), radix: 16)
        else { return nil }
        self.init(high: hi, low: lo)
    }

    /// True when the UUID is derived from the Bluetooth Base UUID.
    @inlinable
    public var isBaseDerived: Bool { low == Self.base.low && high & 0xFFFF_FFFF == 0x1000 }

    /// The 16-bit alias, when the UUID has one.
    @inlinable
    public var uint16: UInt16? {
        guard isBaseDerived, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit alias, when the UUID has one.
    @inlinable
    public var uint32: UInt32? {
        isBaseDerived ? UInt32(truncatingIfNeeded: high >> 32) : nil
    }

    /// The same UUID in its shortest form: 16-bit, else 32-bit, else 128-bit.
    public var shortened: BluetoothUUID {
        if let v = uint16 { return BluetoothUUID(v) }
        if let v = uint32 { return BluetoothUUID(uint32: v) }
        return BluetoothUUID(high: high, low: low)
    }

    /// The same UUID in its 128-bit form.
    public var expanded: BluetoothUUID { BluetoothUUID(high: high, low: low) }

    /// The form ATT uses: 16-bit stays 16-bit; 32-bit UUIDs must travel as 128-bit
    /// (Vol 3 Part F §3.2.1).
    public var attForm: BluetoothUUID { width == .bits32 ? expanded : self }

    /// Appends the little-endian wire form at the declared width.
    @inlinable
    public func append(to buffer: inout [UInt8]) {
        switch width {
        case .bits16:
            let v = UInt16(truncatingIfNeeded: high >> 32)
            buffer.append(UInt8(truncatingIfNeeded: v))
            buffer.append(UInt8(truncatingIfNeeded: v >> 8))
        case .bits32:
            let v = UInt32(truncatingIfNeeded: high >> 32)
            for i in 0..<4 { buffer.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
        case .bits128:
            for i in 0..<8 { buffer.append(UInt8(truncatingIfNeeded: low >> (8 * UInt64(i)))) }
            for i in 0..<8 { buffer.append(UInt8(truncatingIfNeeded: high >> (8 * UInt64(i)))) }
        }
    }

    /// The little-endian wire form at the declared width.
    public var littleEndianBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Int(width.rawValue))
        append(to: &out)
        return out
    }

    /// "180D" for 16-bit, "0000180D" for 32-bit, the uppercase 36-character form for 128-bit.
    public var description: String {
        switch width {
        case .bits16: return hexString(UInt64(high >> 32), digits: 4, uppercase: true)
        case .bits32: return hexString(UInt64(high >> 32), digits: 8, uppercase: true)
        case .bits128: return fullString
        }
    }

    /// The 36-character form, whatever the width.
    public var fullString: String {
        let h = hexString(high, digits: 16, uppercase: true), l = hexString(low, digits: 16, uppercase: true)
        let hs = Array(h), ls = Array(l)
        return String(hs[0..<8]) + "-" + String(hs[8..<12]) + "-" + String(hs[12..<16]) + "-"
            + String(ls[0..<4]) + "-" + String(ls[4..<16])
    }

    /// The assigned-number name, when known ("Heart Rate", "Characteristic").
    public var name: String? { uint16.flatMap { AssignedNumbers.name(for: $0) } }

    public static func == (a: BluetoothUUID, b: BluetoothUUID) -> Bool {
        a.high == b.high && a.low == b.low
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }

    public static func < (a: BluetoothUUID, b: BluetoothUUID) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }
}

extension BluetoothUUID: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt16) { self.init(value) }
}
