import ATT

/// Settings of a ``GATTServer``.
public struct GATTServerConfiguration: Sendable {
    /// Our ATT receive MTU, offered in Exchange MTU Responses.
    public var rxMTU: UInt16 = 512
    /// The ATT transaction timeout (30 s in the spec).
    public var transactionTimeout: Duration = .seconds(30)
    /// Prepare Write Requests one client may queue before Prepare Queue Full (0x09).
    public var prepareQueueLimit = 30
    /// Indications one client may have queued (sent or waiting) before ``GATTServerError/indicationQueueFull``.
    public var indicationQueueLimit = 64
    /// How long the application has to answer a dynamic read or write; later answers are
    /// refused and the client gets Unlikely Error (0x0E).
    public var applicationTimeout: Duration = .seconds(10)
    /// Decides accesses to attributes whose permissions require authorization. It gets the
    /// connection, the real attribute handle, and whether the access is a write. Without
    /// it such accesses fail with Insufficient Authorization (0x08).
    public var authorize: (@Sendable (ConnectionID, AttributeHandle, _ isWrite: Bool) -> Bool)?

    public init() {}
}

/// Why the server refused an application call.
public enum GATTServerError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownConnection(ConnectionID)
    /// The handle is not the value handle of a characteristic.
    case notACharacteristicValue(AttributeHandle)
    /// The characteristic lacks the notify or indicate property.
    case propertyNotSupported(AttributeHandle)
    case indicationQueueFull(ConnectionID)
    case bearer(ATTBearerError)
    case database(DatabaseError)

    public var description: String {
        switch self {
        case .unknownConnection(let c): "unknown \(c)"
        case .notACharacteristicValue(let h): "\(h) is not a characteristic value"
        case .propertyNotSupported(let h): "the characteristic at \(h) does not support this"
        case .indicationQueueFull(let c): "indication queue full on \(c)"
        case .bearer(let e): e.description
        case .database(let e): e.description
        }
    }
}
