/// An HCI command opcode: a 6-bit Opcode Group Field and a 10-bit Opcode Command Field
/// (Vol 4 Part E §5.4.1).
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    @inlinable
    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    /// Opcode Group Field (0x08 is LE Controller commands).
    @inlinable public var ogf: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }
    /// Opcode Command Field.
    @inlinable public var ocf: UInt16 { rawValue & 0x03FF }

    /// "0x2006 (OGF 0x08, OCF 0x0006)"
    public var description: String {
        "0x\(hexString(rawValue, digits: 4)) (OGF 0x\(hexString(ogf, digits: 2)), OCF 0x\(hexString(ocf, digits: 4)))"
    }
}
