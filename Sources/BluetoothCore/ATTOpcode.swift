/// An ATT opcode (Vol 3 Part F §3.3.1): bits 0–5 are the method, bit 6 the command
/// flag and bit 7 the authentication signature flag.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Bits 0–5.
    @inlinable public var method: UInt8 { rawValue & 0x3F }
    /// Bit 6: the PDU is a command, which gets no response.
    @inlinable public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: a 12-byte authentication signature follows the parameters.
    @inlinable public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    /// The role a PDU plays in the sequential protocol (Vol 3 Part F §3.3).
    public enum Kind: Hashable, Sendable {
        case request, response, command, notification, indication, confirmation
        /// Not an opcode of the spec.
        case unknown
    }

    public var kind: Kind {
        switch rawValue {
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: .request
        case 0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: .response
        case 0x52, 0xD2: .command
        case 0x1B, 0x23: .notification
        case 0x1D: .indication
        case 0x1E: .confirmation
        default: .unknown
        }
    }

    /// For a request, the opcode of its response.
    public var responseOpcode: ATTOpcode? {
        kind == .request ? ATTOpcode(rawValue &+ 1) : nil
    }

    /// The spec's name, e.g. "Read By Type Request".
    public var name: String {
        switch rawValue {
        case 0x01: "Error Response"
        case 0x02: "Exchange MTU Request"
        case 0x03: "Exchange MTU Response"
        case 0x04: "Find Information Request"
        case 0x05: "Find Information Response"
        case 0x06: "Find By Type Value Request"
        case 0x07: "Find By Type Value Response"
        case 0x08: "Read By Type Request"
        case 0x09: "Read By Type Response"
        case 0x0A: "Read Request"
        case 0x0B: "Read Response"
        case 0x0C: "Read Blob Request"
        case 0x0D: "Read Blob Response"
        case 0x0E: "Read Multiple Request"
        case 0x0F: "Read Multiple Response"
        case 0x10: "Read By Group Type Request"
        case 0x11: "Read By Group Type Response"
        case 0x12: "Write Request"
        case 0x13: "Write Response"
        case 0x16: "Prepare Write Request"
        case 0x17: "Prepare Write Response"
        case 0x18: "Execute Write Request"
        case 0x19: "Execute Write Response"
        case 0x1B: "Handle Value Notification"
        case 0x1D: "Handle Value Indication"
        case 0x1E: "Handle Value Confirmation"
        case 0x20: "Read Multiple Variable Request"
        case 0x21: "Read Multiple Variable Response"
        case 0x23: "Multiple Handle Value Notification"
        case 0x52: "Write Command"
        case 0xD2: "Signed Write Command"
        default: "Unknown Opcode 0x\(hexString(rawValue, digits: 2))"
        }
    }

    /// The spec's symbolic name, e.g. "ATT_READ_BY_TYPE_REQ".
    public var symbol: String {
        switch rawValue {
        case 0x01: "ATT_ERROR_RSP"
        case 0x02: "ATT_EXCHANGE_MTU_REQ"
        case 0x03: "ATT_EXCHANGE_MTU_RSP"
        case 0x04: "ATT_FIND_INFORMATION_REQ"
        case 0x05: "ATT_FIND_INFORMATION_RSP"
        case 0x06: "ATT_FIND_BY_TYPE_VALUE_REQ"
        case 0x07: "ATT_FIND_BY_TYPE_VALUE_RSP"
        case 0x08: "ATT_READ_BY_TYPE_REQ"
        case 0x09: "ATT_READ_BY_TYPE_RSP"
        case 0x0A: "ATT_READ_REQ"
        case 0x0B: "ATT_READ_RSP"
        case 0x0C: "ATT_READ_BLOB_REQ"
        case 0x0D: "ATT_READ_BLOB_RSP"
        case 0x0E: "ATT_READ_MULTIPLE_REQ"
        case 0x0F: "ATT_READ_MULTIPLE_RSP"
        case 0x10: "ATT_READ_BY_GROUP_TYPE_REQ"
        case 0x11: "ATT_READ_BY_GROUP_TYPE_RSP"
        case 0x12: "ATT_WRITE_REQ"
        case 0x13: "ATT_WRITE_RSP"
        case 0x16: "ATT_PREPARE_WRITE_REQ"
        case 0x17: "ATT_PREPARE_WRITE_RSP"
        case 0x18: "ATT_EXECUTE_WRITE_REQ"
        case 0x19: "ATT_EXECUTE_WRITE_RSP"
        case 0x1B: "ATT_HANDLE_VALUE_NTF"
        case 0x1D: "ATT_HANDLE_VALUE_IND"
        case 0x1E: "ATT_HANDLE_VALUE_CFM"
        case 0x20: "ATT_READ_MULTIPLE_VARIABLE_REQ"
        case 0x21: "ATT_READ_MULTIPLE_VARIABLE_RSP"
        case 0x23: "ATT_MULTIPLE_HANDLE_VALUE_NTF"
        case 0x52: "ATT_WRITE_CMD"
        case 0xD2: "ATT_SIGNED_WRITE_CMD"
        default: "UNKNOWN_0x\(hexString(rawValue, digits: 2))"
        }
    }

    public var description: String { name }
}
