import ATT

/// Per-client server state that outlives a connection for bonded clients
/// (Vol 3 Part G §3.3.3.3: CCCD values persist across connections with bonded devices).
public struct BondedClientState: Hashable, Sendable {
    /// CCCD values by descriptor handle.
    public var clientConfigurations: [AttributeHandle: ClientCharacteristicConfiguration] = [:]
    public var supportedFeatures: ClientSupportedFeatures = []
    /// Whether the client knew the current database when it was last seen.
    public var changeAware: Bool = true
    /// The peer's CSRK (least significant octet first) and last accepted sign counter.
    public var signingKey: [UInt8]?
    public var lastSignCounter: UInt32?
    public init() {}
}

/// Where the server keeps bonded clients' state. Implement it over a file or database to
/// survive restarts; ``InMemoryBondedClientStore`` is the default.
public protocol BondedClientStore: Sendable {
    func state(for peer: PeerIdentity) -> BondedClientState?
    mutating func save(_ state: BondedClientState, for peer: PeerIdentity)
    /// Every stored peer (the server marks them change-unaware when the database changes).
    var peers: [PeerIdentity] { get }
}

/// Keeps bonded clients' state in memory, for the life of the server value.
public struct InMemoryBondedClientStore: BondedClientStore {
    public private(set) var states: [PeerIdentity: BondedClientState] = [:]
    public init() {}
    public func state(for peer: PeerIdentity) -> BondedClientState? { states[peer] }
    public mutating func save(_ state: BondedClientState, for peer: PeerIdentity) { states[peer] = state }
    public var peers: [PeerIdentity] { Array(states.keys) }
}
