import Foundation

/// What a ``Store`` remembers about one peripheral, so a restarted process resumes it
/// like Core Bluetooth's `willRestoreState`.
public struct PeripheralRecord: Hashable, Sendable, Codable {
    /// The peripheral's identifier (derived from address and type).
    public var identifier: UUID
    /// The address to connect to.
    public var address: BluetoothAddress
    /// Public or random.
    public var addressType: BluetoothAddressType
    /// The last name it advertised or its GAP Device Name.
    public var name: String?
    /// The GATT database with its Database Hash, for validation on reconnect.
    public var cache: GATTCache?
    /// Everything subscribed, re-written on the next connection.
    public var subscriptions: [Subscription]
    /// Pairing keys, when bonded.
    public var bond: Bond?
    /// Reconnect automatically after a restart (a gateway's "keep connected").
    public var autoConnect: Bool

    /// A record for the device at `address`; the identifier follows from it.
    public init(address: BluetoothAddress, addressType: BluetoothAddressType, name: String? = nil,
                cache: GATTCache? = nil, subscriptions: [Subscription] = [], bond: Bond? = nil,
                autoConnect: Bool = false) {
        identifier = PeripheralIdentifier.make(address: address, type: addressType)
        self.address = address
        self.addressType = addressType
        self.name = name
        self.cache = cache
        self.subscriptions = subscriptions
        self.bond = bond
        self.autoConnect = autoConnect
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, address, addressType, name, cache, subscriptions, bond, autoConnect
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(UUID.self, forKey: .identifier)
        let text = try c.decode(String.self, forKey: .address)
        guard let address = BluetoothAddress(text) else {
            throw DecodingError.dataCorruptedError(forKey: .address, in: c, debugDescription: "not an address: \(text)")
        }
        self.address = address
        let type = try c.decode(UInt8.self, forKey: .addressType)
        guard let addressType = BluetoothAddressType(rawValue: type) else {
            throw DecodingError.dataCorruptedError(forKey: .addressType, in: c, debugDescription: "address type \(type)")
        }
        self.addressType = addressType
        // Everything finds a record by the identifier its address makes: one under any
        // other would be listed, yet never updated or forgotten (its bond would outlive
        // an unpair that reported success).
        let made = PeripheralIdentifier.make(address: address, type: addressType)
        guard identifier == made else {
            throw DecodingError.dataCorruptedError(forKey: .identifier, in: c,
                debugDescription: "\(identifier.uuidString) is not the identifier of \(address) (type \(type)), \(made.uuidString)")
        }
        name = try c.decodeIfPresent(String.self, forKey: .name)
        cache = try c.decodeIfPresent(GATTCache.self, forKey: .cache)
        subscriptions = try c.decodeIfPresent([Subscription].self, forKey: .subscriptions) ?? []
        bond = try c.decodeIfPresent(Bond.self, forKey: .bond)
        autoConnect = try c.decodeIfPresent(Bool.self, forKey: .autoConnect) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(address.description, forKey: .address)
        try c.encode(addressType.rawValue, forKey: .addressType)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(cache, forKey: .cache)
        try c.encode(subscriptions, forKey: .subscriptions)
        try c.encodeIfPresent(bond, forKey: .bond)
        try c.encode(autoConnect, forKey: .autoConnect)
    }
}
