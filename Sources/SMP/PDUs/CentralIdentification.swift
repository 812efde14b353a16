/// Central Identification (Vol 3 Part H §3.6.3): EDIV and Rand, which name the LTK distributed
/// in LE legacy pairing. They identify a key, they are not one, so they are printed.
public struct CentralIdentification: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.centralIdentification
    public let ediv: UInt16
    public let rand: UInt64

    public init(ediv: UInt16, rand: UInt64) {
        self.ediv = ediv
        self.rand = rand
    }

    init(parameters p: ArraySlice<UInt8>) {
        let s = p.startIndex
        ediv = UInt16(p[s]) | UInt16(p[s + 1]) << 8
        var r: UInt64 = 0
        for i in 0..<8 { r |= UInt64(p[s + 2 + i]) << (8 * UInt64(i)) }
        rand = r
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(UInt8(truncatingIfNeeded: ediv))
        out.append(UInt8(truncatingIfNeeded: ediv >> 8))
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: rand >> (8 * UInt64(i)))) }
    }

    public var description: String { "CentralIdentification(ediv 0x\(String(ediv, radix: 16)), rand 0x\(String(rand, radix: 16)))" }
}
