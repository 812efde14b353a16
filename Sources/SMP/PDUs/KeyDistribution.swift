/// The Initiator/Responder Key Distribution fields (Vol 3 Part H §3.6.1, Figure 3.11).
public struct KeyDistribution: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LE legacy: LTK, EDIV and Rand (Encryption Information, Central Identification).
    /// Ignored in LE Secure Connections, where the LTK is derived.
    public static let encKey = Self(rawValue: 0x01)
    /// IRK and identity address (Identity Information, Identity Address Information).
    public static let idKey = Self(rawValue: 0x02)
    /// CSRK (Signing Information).
    public static let signKey = Self(rawValue: 0x04)
    /// Derive the BR/EDR link key from the LTK (h6/h7).
    public static let linkKey = Self(rawValue: 0x08)
}
