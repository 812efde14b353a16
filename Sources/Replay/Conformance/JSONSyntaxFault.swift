/// Where a JSON document breaks: for files refused by a loader that gives no position
/// (GATT's database loader reads through JSONSerialization), the JSON path and byte
/// offset of the fault, found by reading the document again with ``JSONStreamReader``.
public struct JSONSyntaxFault: Sendable, CustomStringConvertible {
    public var path: String
    public var offset: Int
    public var reason: String

    /// The first fault of `bytes`, or nil when they are one well-formed JSON document.
    public init?(in bytes: [UInt8]) {
        var reader = JSONStreamReader(bytes: bytes)
        do {
            _ = try reader.value("$", depth: 0)
            try reader.end()
            return nil
        } catch {
            path = error.path
            offset = error.offset
            reason = error.reason
        }
    }

    public var description: String { "\(path) at byte \(offset): \(reason)" }
}
