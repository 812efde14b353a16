/// A config file that cannot be used: where (path and position) and why.
///
/// `description` is `path: message`, for example
/// `devices[2].gatt[0].characteristic: not a UUID`; `report(file:)` adds the file and
/// position the way compilers do, for `attune gateway CONFIG --check`.
public struct GatewayConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value at fault; `.root` for problems with the file as a whole.
    public let path: ConfigPath
    /// Where in the file, when known (always, except for files that cannot be read).
    public let mark: YAMLMark?
    /// What is wrong, in words. Never contains a secret's value.
    public let message: String

    public init(path: ConfigPath, mark: YAMLMark?, message: String) {
        self.path = path
        self.mark = mark
        self.message = message
    }

    /// The line, from 1, when known.
    public var line: Int? { mark?.line }
    /// The column, from 1, when known.
    public var column: Int? { mark?.column }

    /// `path: message`, or the message alone for the file as a whole.
    public var description: String {
        let p = path.description
        return p.isEmpty ? message : p + ": " + message
    }

    /// `FILE:LINE:COLUMN: path: message` (without the position when it is not known).
    public func report(file: String) -> String {
        guard let mark else { return file + ": " + description }
        return "\(file):\(mark.line):\(mark.column): " + description
    }
}
