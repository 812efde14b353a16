import ATT

/// Why a database definition is not valid.
public enum DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    case zeroHandle
    case duplicateHandle(AttributeHandle)
    case handlesOutOfOrder(AttributeHandle)
    /// A service or characteristic cannot go where it is asked to, or there is no room
    /// for it: `path` names it as the `services` form of the JSON schema would
    /// (`services[1].characteristics[0].handle`), `reason` says what is in the way.
    case placement(path: String, reason: String)
    /// A characteristic declaration value that does not decode.
    case malformedDeclaration(AttributeHandle)
    /// A stored value longer than its attribute's maximum length.
    case valueTooLong(AttributeHandle)
    /// A value longer than any attribute may hold (512 bytes, Vol 3 Part F §3.2.9).
    case valueOverLimit(AttributeHandle, length: Int)
    /// A maximum length outside 0…512.
    case maximumLengthOutOfRange(AttributeHandle, Int)
    /// Services that include themselves, directly (one service) or through others, in
    /// include order: a client following includes would never finish.
    case includeCycle([ServiceRecord])
    /// A file that is not JSON, with where it first breaks the grammar.
    case syntax(JSONSyntaxError)
    /// JSON that does not follow `Docs/database-json.md`; `path` says where.
    case json(path: String, reason: String)
    /// Several problems: the first few (``DatabaseProblemList/shownLimit``) and how many
    /// there are in all.
    case problems([DatabaseProblem], total: Int)

    /// The longest attribute value there may be (Vol 3 Part F §3.2.9).
    public static let maximumValueLength = 512

    public var description: String {
        switch self {
        case .zeroHandle: "handle 0x0000 is reserved"
        case .duplicateHandle(let h): "duplicate handle \(h)"
        case .handlesOutOfOrder(let h): "handle \(h) is out of order"
        case let .placement(path, reason): "\(path): \(reason)"
        case .malformedDeclaration(let h): "malformed characteristic declaration at \(h)"
        case .valueTooLong(let h): "value at \(h) is longer than its maximum length"
        case let .valueOverLimit(h, n): "value at \(h) is \(n) bytes; attribute values are at most 512 (Vol 3 Part F §3.2.9)"
        case let .maximumLengthOutOfRange(h, n): "maximum length \(n) at \(h) is outside 0…512 (Vol 3 Part F §3.2.9)"
        case let .includeCycle(services):
            (services.count == 1 ? "a service includes itself: " : "services include one another in a cycle: ")
                + IncludeCycle.describe(services.map { "\($0.isPrimary ? "primary" : "secondary") service \($0.uuid) at "
                                                        + "\($0.range.start)…\($0.range.end)" })
        case let .syntax(error): "$: not JSON: \(error)"
        case let .json(path, reason): "\(path): \(reason)"
        case let .problems(shown, total):
            (["\(total) problems:"] + shown.map { "  \($0)" }
                + (total > shown.count ? ["  and \(total - shown.count) more"] : [])).joined(separator: "\n")
        }
    }
}
