/// Advertising data types from the Bluetooth Assigned Numbers (§2.3, "Common Data Types").
public struct ADType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = ADType(0x01)
    public static let incompleteServiceUUIDs16 = ADType(0x02)
    public static let completeServiceUUIDs16 = ADType(0x03)
    public static let incompleteServiceUUIDs32 = ADType(0x04)
    public static let completeServiceUUIDs32 = ADType(0x05)
    public static let incompleteServiceUUIDs128 = ADType(0x06)
    public static let completeServiceUUIDs128 = ADType(0x07)
    public static let shortenedLocalName = ADType(0x08)
    public static let completeLocalName = ADType(0x09)
    public static let txPowerLevel = ADType(0x0A)
    public static let classOfDevice = ADType(0x0D)
    public static let peripheralConnectionIntervalRange = ADType(0x12)
    public static let serviceSolicitationUUIDs16 = ADType(0x14)
    public static let serviceSolicitationUUIDs128 = ADType(0x15)
    public static let serviceData16 = ADType(0x16)
    public static let publicTargetAddress = ADType(0x17)
    public static let randomTargetAddress = ADType(0x18)
    public static let appearance = ADType(0x19)
    public static let advertisingInterval = ADType(0x1A)
    public static let leBluetoothDeviceAddress = ADType(0x1B)
    public static let leRole = ADType(0x1C)
    public static let serviceSolicitationUUIDs32 = ADType(0x1F)
    public static let serviceData32 = ADType(0x20)
    public static let serviceData128 = ADType(0x21)
    public static let uri = ADType(0x24)
    public static let leSupportedFeatures = ADType(0x27)
    public static let manufacturerSpecificData = ADType(0xFF)

    public var name: String? {
        switch rawValue {
        case 0x01: return "Flags"
        case 0x02: return "Incomplete List of 16-bit Service UUIDs"
        case 0x03: return "Complete List of 16-bit Service UUIDs"
        case 0x04: return "Incomplete List of 32-bit Service UUIDs"
        case 0x05: return "Complete List of 32-bit Service UUIDs"
        case 0x06: return "Incomplete List of 128-bit Service UUIDs"
        case 0x07: return "Complete List of 128-bit Service UUIDs"
        case 0x08: return "Shortened Local Name"
        case 0x09: return "Complete Local Name"
        case 0x0A: return "Tx Power Level"
        case 0x0D: return "Class of Device"
        case 0x12: return "Peripheral Connection Interval Range"
        case 0x14: return "List of 16-bit Service Solicitation UUIDs"
        case 0x15: return "List of 128-bit Service Solicitation UUIDs"
        case 0x16: return "Service Data - 16-bit UUID"
        case 0x17: return "Public Target Address"
        case 0x18: return "Random Target Address"
        case 0x19: return "Appearance"
        case 0x1A: return "Advertising Interval"
        case 0x1B: return "LE Bluetooth Device Address"
        case 0x1C: return "LE Role"
        case 0x1F: return "List of 32-bit Service Solicitation UUIDs"
        case 0x20: return "Service Data - 32-bit UUID"
        case 0x21: return "Service Data - 128-bit UUID"
        case 0x24: return "URI"
        case 0x27: return "LE Supported Features"
        case 0xFF: return "Manufacturer Specific Data"
        default: return nil
        }
    }

    public var description: String {
        let s = String(rawValue, radix: 16)
        let hex = "0x" + (s.count == 1 ? "0" + s : s)
        return name.map { "\($0) (\(hex))" } ?? hex
    }
}
