/// A device's input and output capabilities (Vol 3 Part H §3.5.1, Table 3.5). Reserved
/// values from a peer are kept, so the manager can refuse them with Invalid Parameters.
public struct IOCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let displayOnly = Self(rawValue: 0x00)
    public static let displayYesNo = Self(rawValue: 0x01)
    public static let keyboardOnly = Self(rawValue: 0x02)
    public static let noInputNoOutput = Self(rawValue: 0x03)
    public static let keyboardDisplay = Self(rawValue: 0x04)

    /// False for the reserved values 0x05–0xFF.
    public var isDefined: Bool { rawValue <= 0x04 }

    public var description: String {
        switch rawValue {
        case 0x00: return "DisplayOnly"
        case 0x01: return "DisplayYesNo"
        case 0x02: return "KeyboardOnly"
        case 0x03: return "NoInputNoOutput"
        case 0x04: return "KeyboardDisplay"
        default: return "reserved 0x\(String(rawValue, radix: 16))"
        }
    }
}
