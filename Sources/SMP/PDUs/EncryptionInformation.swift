/// Encryption Information (Vol 3 Part H §3.6.2): the LTK distributed in LE legacy pairing.
public struct EncryptionInformation: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.encryptionInformation
    /// The LTK; never printed.
    public let longTermKey: SMPKey

    public init(longTermKey: SMPKey) { self.longTermKey = longTermKey }

    init(parameters: ArraySlice<UInt8>) {
        longTermKey = SMPKey(exactly: Array(parameters))
    }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(contentsOf: longTermKey.bytes)
    }

    public var description: String { "EncryptionInformation(<redacted>)" }
}
