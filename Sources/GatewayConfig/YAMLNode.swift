/// One node of a loaded YAML document, with where it starts in the file.
///
/// A small tree rather than libyaml's document API so that limits (depth, node count, no
/// aliases, no duplicate keys) are enforced while the events arrive, before memory is spent.
public struct YAMLNode: Hashable, Sendable {
    /// What the node holds.
    public enum Content: Hashable, Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        /// Entries in document order. Keys are scalars and unique (the loader rejects others).
        case mapping([YAMLMappingEntry])
    }

    public let content: Content
    /// Where the node starts.
    public let mark: YAMLMark

    public init(_ content: Content, at mark: YAMLMark) {
        self.content = content
        self.mark = mark
    }

    /// "a mapping", "a sequence", "a string", "a number", ... for error messages.
    public var kindDescription: String {
        switch content {
        case .mapping: return "a mapping"
        case .sequence: return "a sequence"
        case .scalar(let s):
            switch s.value {
            case .null: return "null"
            case .boolean: return "a boolean"
            case .integer, .number: return "a number"
            case .string: return "a string"
            case .invalid: return "a mistagged scalar"
            }
        }
    }
}

/// A mapping's key (its scalar text) and value.
public struct YAMLMappingEntry: Hashable, Sendable {
    public let key: String
    public let keyMark: YAMLMark
    public let value: YAMLNode

    public init(key: String, keyMark: YAMLMark, value: YAMLNode) {
        self.key = key
        self.keyMark = keyMark
        self.value = value
    }
}
