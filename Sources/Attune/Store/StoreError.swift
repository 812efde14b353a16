/// A store could not do what was asked.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done ("write", "rename", "encode"...).
    public var operation: String
    /// The file or directory concerned.
    public var path: String
    /// The errno, when a system call failed.
    public var code: Int32?
    /// What went wrong, for people.
    public var detail: String

    /// An error from its parts.
    public init(operation: String, path: String, code: Int32? = nil, detail: String) {
        self.operation = operation
        self.path = path
        self.code = code
        self.detail = detail
    }

    public var description: String { "store: \(operation) \(path): \(detail)" }
}
