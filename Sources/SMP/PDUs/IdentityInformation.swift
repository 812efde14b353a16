/// Identity Information (Vol 3 Part H §3.6.4): the IRK.
public struct IdentityInformation: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.identityInformation
    /// The IRK; never printed.
    public let identityResolvingKey: SMPKey

    public init(identityResolvingKey: SMPKey) { self.identityResolvingKey = identityResolvingKey }

    init(parameters: ArraySlice<UInt8>) {
        identityResolvingKey = SMPKey(exactly: Array(parameters))
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(contentsOf: identityResolvingKey.bytes)
    }

    public var description: String { "IdentityInformation(<redacted>)" }
}
