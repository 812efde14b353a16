/// An ATT error code (Vol 3 Part F §3.4.1.1), plus the application range 0x80–0x9F and
/// the common profile and service error codes 0xE0–0xFF (Core Specification Supplement
/// Part B).
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Error {
    public var rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = ATTErrorCode(0x01)
    public static let readNotPermitted = ATTErrorCode(0x02)
    public static let writeNotPermitted = ATTErrorCode(0x03)
    public static let invalidPDU = ATTErrorCode(0x04)
    public static let insufficientAuthentication = ATTErrorCode(0x05)
    public static let requestNotSupported = ATTErrorCode(0x06)
    public static let invalidOffset = ATTErrorCode(0x07)
    public static let insufficientAuthorization = ATTErrorCode(0x08)
    public static let prepareQueueFull = ATTErrorCode(0x09)
    public static let attributeNotFound = ATTErrorCode(0x0A)
    public static let attributeNotLong = ATTErrorCode(0x0B)
    public static let encryptionKeySizeTooShort = ATTErrorCode(0x0C)
    public static let invalidAttributeValueLength = ATTErrorCode(0x0D)
    public static let unlikelyError = ATTErrorCode(0x0E)
    public static let insufficientEncryption = ATTErrorCode(0x0F)
    public static let unsupportedGroupType = ATTErrorCode(0x10)
    public static let insufficientResources = ATTErrorCode(0x11)
    public static let databaseOutOfSync = ATTErrorCode(0x12)
    public static let valueNotAllowed = ATTErrorCode(0x13)
    public static let writeRequestRejected = ATTErrorCode(0xFC)
    public static let cccdImproperlyConfigured = ATTErrorCode(0xFD)
    public static let procedureAlreadyInProgress = ATTErrorCode(0xFE)
    public static let outOfRange = ATTErrorCode(0xFF)

    /// 0x80–0x9F: defined by a higher-layer specification or the application.
    @inlinable public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }
    /// 0xE0–0xFF: common profile and service error codes.
    @inlinable public var isCommonProfileError: Bool { rawValue >= 0xE0 }
    /// Errors that the client may cure by raising link security and retrying.
    @inlinable public var isSecurityError: Bool {
        self == .insufficientAuthentication || self == .insufficientEncryption
    }

    /// The spec's name for the code.
    public var name: String {
        switch rawValue {
        case 0x01: return "Invalid Handle"
        case 0x02: return "Read Not Permitted"
        case 0x03: return "Write Not Permitted"
        case 0x04: return "Invalid PDU"
        case 0x05: return "Insufficient Authentication"
        case 0x06: return "Request Not Supported"
        case 0x07: return "Invalid Offset"
        case 0x08: return "Insufficient Authorization"
        case 0x09: return "Prepare Queue Full"
        case 0x0A: return "Attribute Not Found"
        case 0x0B: return "Attribute Not Long"
        case 0x0C: return "Encryption Key Size Too Short"
        case 0x0D: return "Invalid Attribute Value Length"
        case 0x0E: return "Unlikely Error"
        case 0x0F: return "Insufficient Encryption"
        case 0x10: return "Unsupported Group Type"
        case 0x11: return "Insufficient Resources"
        case 0x12: return "Database Out Of Sync"
        case 0x13: return "Value Not Allowed"
        case 0x80...0x9F: return "Application Error 0x\(hexString(rawValue, digits: 2))"
        case 0xFC: return "Write Request Rejected"
        case 0xFD: return "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: return "Procedure Already in Progress"
        case 0xFF: return "Out of Range"
        case 0xE0...0xFB: return "Reserved Common Profile Error 0x\(hexString(rawValue, digits: 2))"
        default: return "Reserved Error 0x\(hexString(rawValue, digits: 2))"
        }
    }

    /// A sentence for people: what the code means.
    public var explanation: String {
        switch rawValue {
        case 0x01: return "The attribute handle given was not valid on this server."
        case 0x02: return "The attribute cannot be read."
        case 0x03: return "The attribute cannot be written."
        case 0x04: return "The attribute PDU was invalid."
        case 0x05: return "The attribute requires authentication before it can be read or written."
        case 0x06: return "The server does not support the request received from the client."
        case 0x07: return "The offset specified was past the end of the attribute."
        case 0x08: return "The attribute requires authorization before it can be read or written."
        case 0x09: return "Too many prepare writes have been queued."
        case 0x0A: return "No attribute found within the given attribute handle range."
        case 0x0B: return "The attribute cannot be read using the Read Blob Request."
        case 0x0C: return "The encryption key size used for encrypting this link is too short."
        case 0x0D: return "The attribute value length is invalid for the operation."
        case 0x0E: return "The request encountered an unlikely error and could not be completed."
        case 0x0F: return "The attribute requires encryption before it can be read or written."
        case 0x10: return "The attribute type is not a supported grouping attribute."
        case 0x11: return "Insufficient resources to complete the request."
        case 0x12: return "The server requests the client to rediscover the database."
        case 0x13: return "The attribute parameter value was not allowed."
        case 0x80...0x9F: return "Application error code defined by a higher layer specification."
        case 0xFC: return "A write request was rejected for a reason other than those of the ATT error codes."
        case 0xFD: return "The Client Characteristic Configuration Descriptor is not configured as the procedure requires."
        case 0xFE: return "A request cannot be serviced because an operation that was previously triggered is still in progress."
        case 0xFF: return "An attribute value is out of range as defined by a profile or service specification."
        default: return "Reserved for future use."
        }
    }

    /// "0x0a Attribute Not Found"
    public var description: String { "0x\(hexString(rawValue, digits: 2)) \(name)" }
}
