/// Something found wrong in a store while loading it. The store went on without it.
public struct StoreProblem: Hashable, Sendable, CustomStringConvertible {
    /// The file that could not be used.
    public var path: String
    /// Where it was moved so nothing is lost, or nil if it could not be moved.
    public var movedTo: String?
    /// Why it could not be used.
    public var reason: String
    /// The field at fault inside the file (`bond.keySize`), when one field is.
    public var field: String?

    /// A problem from its parts.
    public init(path: String, movedTo: String?, reason: String, field: String? = nil) {
        self.path = path
        self.movedTo = movedTo
        self.reason = reason
        self.field = field
    }

    public var description: String {
        "corrupt store file \(path): \(reason)" + (movedTo.map { "; moved aside to \($0)" } ?? "; could not move it aside")
    }
}
