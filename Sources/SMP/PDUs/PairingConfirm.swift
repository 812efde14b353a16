/// Pairing Confirm (Vol 3 Part H §3.5.3): Mconfirm/Sconfirm, or Ca/Cb in LE Secure Connections.
public struct PairingConfirm: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.pairingConfirm
    /// 16 octets, least significant first.
    public let confirmValue: [UInt8]

    /// `confirmValue` must have 16 octets; it is padded or cut to 16 otherwise.
    public init(confirmValue: [UInt8]) { self.confirmValue = Array((confirmValue + [UInt8](repeating: 0, count: 16)).prefix(16)) }

    init(parameters: ArraySlice<UInt8>) {
        confirmValue = Array(parameters)
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(contentsOf: confirmValue)
    }

    public var description: String { "PairingConfirm(\(hexString(confirmValue)))" }
}
