/// The key a client cache is stored under: the peer's identity address (its public or
/// static random address, or the identity resolved from an IRK), never a resolvable
/// private address, which changes.
public struct GATTPeerIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    /// "AA:BB:CC:DD:EE:FF", or any stable name of the peer.
    public var address: String
    /// Whether the address is a random (static) one rather than public.
    public var isRandom: Bool

    public init(address: String, isRandom: Bool = false) {
        self.address = address.uppercased()
        self.isRandom = isRandom
    }

    public var description: String { "\(address) (\(isRandom ? "random" : "public"))" }

    /// A file name made of the identity: letters, digits and '-' only.
    var fileName: String {
        let safe = address.map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        return safe + (isRandom ? "-random" : "-public") + ".json"
    }
}
