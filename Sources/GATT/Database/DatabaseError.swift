import ATT

/// Why a database definition is not valid.
public enum DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    case zeroHandle
    case duplicateHandle(AttributeHandle)
    case handlesOutOfOrder(AttributeHandle)
    /// Automatic allocation ran past 0xFFFF.
    case outOfHandles
    /// An explicit handle or range collides with attributes already placed.
    case overlap(AttributeHandle)
    /// A characteristic declaration value that does not decode.
    case malformedDeclaration(AttributeHandle)
    /// An include refers to a service id that does not exist.
    case unknownInclude(String)
    case valueTooLong(AttributeHandle)
    /// JSON that does not follow `Docs/database-json.md`; `path` says where.
    case json(path: String, reason: String)

    public var description: String {
        switch self {
        case .zeroHandle: "handle 0x0000 is reserved"
        case .duplicateHandle(let h): "duplicate handle \(h)"
        case .handlesOutOfOrder(let h): "handle \(h) is out of order"
        case .outOfHandles: "no handles left (past 0xffff)"
        case .overlap(let h): "handle \(h) is already used"
        case .malformedDeclaration(let h): "malformed characteristic declaration at \(h)"
        case .unknownInclude(let id): "include of unknown service \"\(id)\""
        case .valueTooLong(let h): "value at \(h) is longer than its maximum length"
        case let .json(path, reason): "\(path): \(reason)"
        }
    }
}
