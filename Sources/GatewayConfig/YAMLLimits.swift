/// Bounds on what a YAML file may cost to load. A file beyond any of them is an error, found
/// while the events arrive, before its memory is spent.
public struct YAMLLimits: Hashable, Sendable {
    /// The largest file, in bytes (4 MiB: about 4096 devices with every option and comments).
    public var maxBytes: Int
    /// The deepest nesting of sequences and mappings (the gateway config needs 5).
    public var maxDepth: Int
    /// The most nodes (scalars, sequences and mappings) in the document.
    public var maxNodes: Int

    public init(maxBytes: Int = 4 << 20, maxDepth: Int = 64, maxNodes: Int = 500_000) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }
}
