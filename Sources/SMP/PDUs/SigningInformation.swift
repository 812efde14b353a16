/// Signing Information (Vol 3 Part H §3.6.6): the CSRK.
public struct SigningInformation: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.signingInformation
    /// The CSRK; never printed.
    public let signatureKey: SMPKey

    public init(signatureKey: SMPKey) { self.signatureKey = signatureKey }

    init(parameters: ArraySlice<UInt8>) {
        signatureKey = SMPKey(exactly: Array(parameters))
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(contentsOf: signatureKey.bytes)
    }

    public var description: String { "SigningInformation(<redacted>)" }
}
