/// Pairing Public Key (Vol 3 Part H §3.5.6): the P-256 point, X then Y, each 32 octets least
/// significant first. Decoding does not check the curve; the manager validates the point
/// before any ECDH.
public struct PairingPublicKey: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.pairingPublicKey
    public let x: [UInt8]
    public let y: [UInt8]

    /// `x` and `y` must have 32 octets each; they are padded or cut to 32 otherwise.
    public init(x: [UInt8], y: [UInt8]) {
        self.x = Array((x + [UInt8](repeating: 0, count: 32)).prefix(32))
        self.y = Array((y + [UInt8](repeating: 0, count: 32)).prefix(32))
    }

    init(parameters p: ArraySlice<UInt8>) {
        let s = p.startIndex
        x = Array(p[s..<(s + 32)])
        y = Array(p[(s + 32)..<(s + 64)])
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(contentsOf: x)
        out.append(contentsOf: y)
    }

    public var description: String { "PairingPublicKey(x \(hexString(x.reversed())), y \(hexString(y.reversed())))" }
}
