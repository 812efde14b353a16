/// Pairing DHKey Check (Vol 3 Part H §3.5.7): Ea or Eb.
public struct PairingDHKeyCheck: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.pairingDHKeyCheck
    /// 16 octets, least significant first.
    public let checkValue: [UInt8]

    /// `checkValue` must have 16 octets; it is padded or cut to 16 otherwise.
    public init(checkValue: [UInt8]) { self.checkValue = Array((checkValue + [UInt8](repeating: 0, count: 16)).prefix(16)) }

    init(parameters: ArraySlice<UInt8>) {
        checkValue = Array(parameters)
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(contentsOf: checkValue)
    }

    public var description: String { "PairingDHKeyCheck(\(hexString(checkValue)))" }
}
