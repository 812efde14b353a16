/// The Supported_Commands bit map.
public struct SupportedCommands: Hashable, Sendable {
    public var octets: [UInt8]
    public init(octets: [UInt8]) { self.octets = octets }

    /// True when the bit for (octet, bit) is set.
    public func contains(octet: Int, bit: Int) -> Bool {
        octet < octets.count && octets[octet] & (1 << bit) != 0
    }

    /// LE Read Buffer Size [v2]: octet 41, bit 5.
    public var leReadBufferSizeV2: Bool { contains(octet: 41, bit: 5) }
}
