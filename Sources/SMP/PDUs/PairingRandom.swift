/// Pairing Random (Vol 3 Part H §3.5.4): Mrand/Srand, or Na/Nb.
public struct PairingRandom: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.pairingRandom
    /// 16 octets, least significant first.
    public let randomValue: [UInt8]

    /// `randomValue` must have 16 octets; it is padded or cut to 16 otherwise.
    public init(randomValue: [UInt8]) { self.randomValue = Array((randomValue + [UInt8](repeating: 0, count: 16)).prefix(16)) }

    init(parameters: ArraySlice<UInt8>) {
        randomValue = Array(parameters)
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(contentsOf: randomValue)
    }

    public var description: String { "PairingRandom(\(hexString(randomValue)))" }
}
