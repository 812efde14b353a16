/// A store could not do what was asked.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done ("write", "rename", "encode"...).
    public var operation: String
    public var path: String
    /// The errno, when a system call failed.
    public var code: Int32?
    public var detail: String

    public init(operation: String, path: String, code: Int32? = nil, detail: String) {
        self.operation = operation
        self.path = path
        self.code = code
        self.detail = detail
    }

    public var description: String { "store: \(operation) \(path): \(detail)" }
}
