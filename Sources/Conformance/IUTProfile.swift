import ATT
import BluetoothCore
import GATT

/// What the tester knows of the IUT after its own MTU exchange and discovery: the ATT_MTU
/// in force, the database, every attribute handle with its type, and the values it
/// could read. Tests pick the handles that fit their preconditions from it.
public struct IUTProfile: Sendable {
    /// The ATT_MTU in force after the tester's exchange (23 when the IUT declined it).
    public var mtu: Int = 23
    /// Services (primary and secondary), includes, characteristics and descriptors.
    public var database = DiscoveredDatabase()
    /// Every attribute the Find Information walk returned, in handle order.
    public var attributes: [(handle: AttributeHandle, type: BluetoothUUID)] = []
    /// Values read during discovery, by handle: every characteristic with the Read
    /// property and every descriptor.
    public var values: [AttributeHandle: SurveyedValue] = [:]
    /// The tester's own Exchange MTU request and the IUT's answer.
    public var mtuExchange: [ExchangedPDU] = []

    public init() {}

    /// All characteristics, in handle order.
    public var characteristics: [DiscoveredCharacteristic] {
        database.services.flatMap(\.characteristics).sorted { $0.valueHandle < $1.valueHandle }
    }

    /// The characteristics with the Read property the survey could read.
    var readable: [DiscoveredCharacteristic] {
        characteristics.filter { $0.properties.contains(.read) && values[$0.valueHandle]?.knownPrefix != nil }
    }

    /// The characteristics without the Read property.
    var unreadable: [DiscoveredCharacteristic] {
        characteristics.filter { !$0.properties.contains(.read) }
    }

    /// The characteristics with none of the write properties.
    var unwritable: [DiscoveredCharacteristic] {
        characteristics.filter { $0.properties.isDisjoint(with: [.write, .writeWithoutResponse, .authenticatedSignedWrites]) }
    }

    /// A handle no attribute has: the first after the highest handle found, else the
    /// first gap. Nil only when every handle up to 0xFFFF is an attribute.
    var invalidHandle: AttributeHandle? {
        let used = Set(attributes.map(\.handle.rawValue))
        let highest = used.max() ?? 0
        if highest < 0xFFFF { return AttributeHandle(highest + 1) }
        return (1...UInt16.max).first { !used.contains($0) }.map { AttributeHandle($0) }
    }

    /// Whether a value filled a whole Read Response, so the test needs Read Blob for the rest.
    func isLong(_ handle: AttributeHandle) -> Bool { (values[handle]?.knownPrefix?.count ?? 0) > mtu - 1 }

    /// The characteristic whose value handle is `handle`.
    func characteristic(at handle: AttributeHandle) -> DiscoveredCharacteristic? {
        characteristics.first { $0.valueHandle == handle }
    }
}
