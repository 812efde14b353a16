/// The type of one AD structure (Assigned Numbers §2.3, Core Specification Supplement
/// Part A).
public struct AdvertisingDataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = AdvertisingDataType(0x01)
    public static let incompleteServiceUUIDs16 = AdvertisingDataType(0x02)
    public static let completeServiceUUIDs16 = AdvertisingDataType(0x03)
    public static let incompleteServiceUUIDs32 = AdvertisingDataType(0x04)
    public static let completeServiceUUIDs32 = AdvertisingDataType(0x05)
    public static let incompleteServiceUUIDs128 = AdvertisingDataType(0x06)
    public static let completeServiceUUIDs128 = AdvertisingDataType(0x07)
    public static let shortenedLocalName = AdvertisingDataType(0x08)
    public static let completeLocalName = AdvertisingDataType(0x09)
    public static let txPowerLevel = AdvertisingDataType(0x0A)
    public static let classOfDevice = AdvertisingDataType(0x0D)
    public static let simplePairingHashC192 = AdvertisingDataType(0x0E)
    public static let simplePairingRandomizerR192 = AdvertisingDataType(0x0F)
    /// Device ID, or Security Manager TK Value (the same code in two profiles).
    public static let securityManagerTKValue = AdvertisingDataType(0x10)
    public static let securityManagerOOBFlags = AdvertisingDataType(0x11)
    public static let peripheralConnectionIntervalRange = AdvertisingDataType(0x12)
    public static let serviceSolicitationUUIDs16 = AdvertisingDataType(0x14)
    public static let serviceSolicitationUUIDs128 = AdvertisingDataType(0x15)
    public static let serviceData16 = AdvertisingDataType(0x16)
    public static let publicTargetAddress = AdvertisingDataType(0x17)
    public static let randomTargetAddress = AdvertisingDataType(0x18)
    public static let appearance = AdvertisingDataType(0x19)
    public static let advertisingInterval = AdvertisingDataType(0x1A)
    public static let leBluetoothDeviceAddress = AdvertisingDataType(0x1B)
    public static let leRole = AdvertisingDataType(0x1C)
    public static let simplePairingHashC256 = AdvertisingDataType(0x1D)
    public static let simplePairingRandomizerR256 = AdvertisingDataType(0x1E)
    public static let serviceSolicitationUUIDs32 = AdvertisingDataType(0x1F)
    public static let serviceData32 = AdvertisingDataType(0x20)
    public static let serviceData128 = AdvertisingDataType(0x21)
    public static let leSecureConnectionsConfirmation = AdvertisingDataType(0x22)
    public static let leSecureConnectionsRandom = AdvertisingDataType(0x23)
    public static let uri = AdvertisingDataType(0x24)
    public static let indoorPositioning = AdvertisingDataType(0x25)
    public static let transportDiscoveryData = AdvertisingDataType(0x26)
    public static let leSupportedFeatures = AdvertisingDataType(0x27)
    public static let channelMapUpdateIndication = AdvertisingDataType(0x28)
    public static let pbADV = AdvertisingDataType(0x29)
    public static let meshMessage = AdvertisingDataType(0x2A)
    public static let meshBeacon = AdvertisingDataType(0x2B)
    public static let bigInfo = AdvertisingDataType(0x2C)
    public static let broadcastCode = AdvertisingDataType(0x2D)
    public static let resolvableSetIdentifier = AdvertisingDataType(0x2E)
    public static let advertisingIntervalLong = AdvertisingDataType(0x2F)
    public static let broadcastName = AdvertisingDataType(0x30)
    public static let encryptedAdvertisingData = AdvertisingDataType(0x31)
    public static let periodicAdvertisingResponseTimingInformation = AdvertisingDataType(0x32)
    public static let electronicShelfLabel = AdvertisingDataType(0x34)
    public static let threeDInformationData = AdvertisingDataType(0x3D)
    public static let manufacturerSpecificData = AdvertisingDataType(0xFF)

    /// The Assigned Numbers name, or nil for a code this table does not know.
    public var name: String? {
        switch rawValue {
        case 0x01: "Flags"
        case 0x02: "Incomplete List of 16-bit Service Class UUIDs"
        case 0x03: "Complete List of 16-bit Service Class UUIDs"
        case 0x04: "Incomplete List of 32-bit Service Class UUIDs"
        case 0x05: "Complete List of 32-bit Service Class UUIDs"
        case 0x06: "Incomplete List of 128-bit Service Class UUIDs"
        case 0x07: "Complete List of 128-bit Service Class UUIDs"
        case 0x08: "Shortened Local Name"
        case 0x09: "Complete Local Name"
        case 0x0A: "Tx Power Level"
        case 0x0D: "Class of Device"
        case 0x0E: "Simple Pairing Hash C-192"
        case 0x0F: "Simple Pairing Randomizer R-192"
        case 0x10: "Security Manager TK Value"
        case 0x11: "Security Manager Out of Band Flags"
        case 0x12: "Peripheral Connection Interval Range"
        case 0x14: "List of 16-bit Service Solicitation UUIDs"
        case 0x15: "List of 128-bit Service Solicitation UUIDs"
        case 0x16: "Service Data - 16-bit UUID"
        case 0x17: "Public Target Address"
        case 0x18: "Random Target Address"
        case 0x19: "Appearance"
        case 0x1A: "Advertising Interval"
        case 0x1B: "LE Bluetooth Device Address"
        case 0x1C: "LE Role"
        case 0x1D: "Simple Pairing Hash C-256"
        case 0x1E: "Simple Pairing Randomizer R-256"
        case 0x1F: "List of 32-bit Service Solicitation UUIDs"
        case 0x20: "Service Data - 32-bit UUID"
        case 0x21: "Service Data - 128-bit UUID"
        case 0x22: "LE Secure Connections Confirmation Value"
        case 0x23: "LE Secure Connections Random Value"
        case 0x24: "URI"
        case 0x25: "Indoor Positioning"
        case 0x26: "Transport Discovery Data"
        case 0x27: "LE Supported Features"
        case 0x28: "Channel Map Update Indication"
        case 0x29: "PB-ADV"
        case 0x2A: "Mesh Message"
        case 0x2B: "Mesh Beacon"
        case 0x2C: "BIGInfo"
        case 0x2D: "Broadcast_Code"
        case 0x2E: "Resolvable Set Identifier"
        case 0x2F: "Advertising Interval - long"
        case 0x30: "Broadcast_Name"
        case 0x31: "Encrypted Advertising Data"
        case 0x32: "Periodic Advertising Response Timing Information"
        case 0x34: "Electronic Shelf Label"
        case 0x3D: "3D Information Data"
        case 0xFF: "Manufacturer Specific Data"
        default: nil
        }
    }

    public var description: String {
        let hex = String(rawValue, radix: 16)
        return (name ?? "AD type") + " (0x" + (hex.count == 1 ? "0" + hex : hex) + ")"
    }
}
