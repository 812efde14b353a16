/// Reads one YAML mapping of the config: refuses keys it does not know (naming the nearest
/// known one), and hands out values with their paths.
struct MappingReader {
    let path: ConfigPath
    let mark: YAMLMark
    private let values: [String: YAMLNode]

    /// Fails unless `node` is a mapping whose keys are all in `keys`.
    init(_ node: YAMLNode, at path: ConfigPath, keys: [String]) throws(GatewayConfigError) {
        guard case .mapping(let entries) = node.content else {
            throw GatewayConfigError(path: path, mark: node.mark, message: "expected a mapping, got \(node.kindDescription)")
        }
        self.path = path
        mark = node.mark
        var values: [String: YAMLNode] = [:]
        for entry in entries {
            guard keys.contains(entry.key) else {
                var message = "unknown key"
                if let near = nearest(entry.key, in: keys) { message += "; did you mean \(near)?" }
                throw GatewayConfigError(path: path.appending(entry.key), mark: entry.keyMark, message: message)
            }
            values[entry.key] = entry.value
        }
        self.values = values
    }

    /// The value under `key`, or nil when the key is absent.
    subscript(key: String) -> YAMLNode? { values[key] }

    func has(_ key: String) -> Bool { values[key] != nil }

    /// The value under `key`, or a "missing" error pointing at the mapping.
    func required(_ key: String) throws(GatewayConfigError) -> YAMLNode {
        guard let node = values[key] else {
            throw GatewayConfigError(path: path.appending(key), mark: mark, message: "missing")
        }
        return node
    }

    /// Reads `key` with `read` when present.
    func optional<T>(_ key: String, _ read: (YAMLNode, ConfigPath) throws(GatewayConfigError) -> T) throws(GatewayConfigError) -> T? {
        guard let node = values[key] else { return nil }
        return try read(node, path.appending(key))
    }

    /// Reads `key` with `read`; a "missing" error when absent.
    func require<T>(_ key: String, _ read: (YAMLNode, ConfigPath) throws(GatewayConfigError) -> T) throws(GatewayConfigError) -> T {
        try read(try required(key), path.appending(key))
    }

    /// An error about `key`'s value (or about the mapping, when the key is absent).
    func error(_ key: String, _ message: String) -> GatewayConfigError {
        GatewayConfigError(path: path.appending(key), mark: values[key]?.mark ?? mark, message: message)
    }
}

/// The known key within two edits of `key`, for "did you mean" hints on typos.
func nearest(_ key: String, in keys: [String]) -> String? {
    let a = Array(key.utf8.prefix(64))
    var best: (String, Int)?
    for candidate in keys {
        let d = editDistance(a, Array(candidate.utf8))
        if d <= 2, d < (best?.1 ?? Int.max) { best = (candidate, d) }
    }
    return best?.0
}

private func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1]
        current.reserveCapacity(b.count + 1)
        for (j, y) in b.enumerated() {
            current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
