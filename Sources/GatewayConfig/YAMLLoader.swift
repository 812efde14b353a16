import CYAML

/// Loads one YAML document (JSON included, as JSON is YAML) into a `YAMLNode` tree through
/// libyaml's event parser.
///
/// The event parser, not libyaml's document loader, so that each limit is checked as the
/// events arrive. Aliases are refused outright (so no "billion laughs" expansion), anchors and
/// the core schema's tags are accepted, duplicate keys and non-scalar keys are errors, and
/// the input must be UTF-8.
public enum YAMLLoader {
    /// Parses `bytes` as a single YAML document. An empty file gives a null scalar.
    public static func load(_ bytes: [UInt8], limits: YAMLLimits = YAMLLimits()) throws(GatewayConfigError) -> YAMLNode {
        guard bytes.count <= limits.maxBytes else {
            throw GatewayConfigError(path: .root, mark: nil,
                                     message: "the file is \(bytes.count) bytes; at most \(limits.maxBytes)")
        }
        if let encoding = otherEncoding(bytes) {
            throw GatewayConfigError(path: .root, mark: YAMLMark(line: 1, column: 1),
                                     message: "the file starts with a \(encoding) byte order mark; save the file as UTF-8")
        }
        if let bad = firstInvalidUTF8(bytes) {
            throw GatewayConfigError(path: .root, mark: mark(ofOffset: bad, in: bytes),
                                     message: "not UTF-8 text (byte \(bad))")
        }
        // A leading UTF-8 byte order mark is allowed (YAML 1.2 §5.2) and invisible in an
        // editor. libyaml, told the encoding, reads it as content and fails with "did not
        // find expected <document start>"; without it, lines and columns are the editor's.
        let skipped = bytes.starts(with: utf8ByteOrderMark) ? utf8ByteOrderMark.count : 0
        let length = bytes.count - skipped
        // libyaml wants a non-null pointer even for an empty input.
        let input = length == 0 ? [0] : skipped == 0 ? bytes : Array(bytes[skipped...])
        let result: Result<YAMLNode, GatewayConfigError> = input.withUnsafeBufferPointer { whole in
            let buffer = UnsafeBufferPointer(rebasing: whole.prefix(length))
            let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            defer { parser.deallocate() }
            guard yaml_parser_initialize(parser) != 0 else {
                return .failure(GatewayConfigError(path: .root, mark: nil, message: "libyaml could not start"))
            }
            defer { yaml_parser_delete(parser) }
            // libyaml reads through the pointer until parsing ends; the buffer outlives it here.
            yaml_parser_set_input_string(parser, whole.baseAddress, buffer.count)
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            var builder = TreeBuilder(limits: limits)
            do throws(GatewayConfigError) {
                return .success(try builder.run(parser, bytes: buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    static let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The encoding a UTF-16 or UTF-32 byte order mark at the start names, or nil: such a
    /// file is not "invalid UTF-8 at byte 0" but text to save again as UTF-8.
    static func otherEncoding(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return "UTF-32 (big-endian)" }
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return "UTF-32 (little-endian)" }
        if bytes.starts(with: [0xFE, 0xFF]) { return "UTF-16 (big-endian)" }
        if bytes.starts(with: [0xFF, 0xFE]) { return "UTF-16 (little-endian)" }
        return nil
    }

    /// The offset of the first byte that is not part of valid UTF-8 (RFC 3629: no overlong
    /// forms, no surrogates, nothing above U+10FFFF), or nil. A plain loop over the bytes,
    /// ASCII first, because a 4 MiB file must be checked quickly even in a debug build.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { b -> Int? in
            var i = 0
            let n = b.count
            while i < n {
                let lead = b[i]
                if lead < 0x80 {
                    i += 1
                    continue
                }
                let length: Int
                var low: UInt8 = 0x80, high: UInt8 = 0xBF  // the range of the second byte
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0: length = 3; low = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED: length = 3; high = 0x9F
                case 0xF0: length = 4; low = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4: length = 4; high = 0x8F
                default: return i
                }
                guard i + length <= n, (low...high).contains(b[i + 1]) else { return i }
                for k in 2..<length where b[i + k] & 0xC0 != 0x80 { return i }
                i += length
            }
            return nil
        }
    }

    /// The 1-based line and column (in scalars) of a byte offset.
    static func mark(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        var line = 1, column = 1
        for b in bytes.prefix(max(0, min(offset, bytes.count))) {
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return YAMLMark(line: line, column: column)
    }

    static func mark(ofOffset offset: Int, in bytes: [UInt8]) -> YAMLMark {
        bytes.withUnsafeBufferPointer { mark(ofOffset: offset, in: $0) }
    }
}

/// A sequence or mapping still being read.
private struct Frame {
    enum Kind {
        case sequence([YAMLNode])
        case mapping([YAMLMappingEntry], pendingKey: (String, YAMLMark)?, keys: Set<String>)
    }

    var kind: Kind
    let mark: YAMLMark
    let path: ConfigPath
}

/// Turns libyaml's events into a `YAMLNode`, checking the limits at each one.
private struct TreeBuilder {
    let limits: YAMLLimits
    var stack: [Frame] = []
    var root: YAMLNode?
    var nodes = 0
    var documents = 0

    init(limits: YAMLLimits) {
        self.limits = limits
    }

    mutating func run(_ parser: UnsafeMutablePointer<yaml_parser_t>, bytes: UnsafeBufferPointer<UInt8>) throws(GatewayConfigError) -> YAMLNode {
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) != 0 else {
                throw parserError(parser.pointee, bytes: bytes)
            }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { break }
            try handle(event)
        }
        return root ?? YAMLNode(.scalar(YAMLScalar(text: "")), at: YAMLMark(line: 1, column: 1))
    }

    mutating func handle(_ event: yaml_event_t) throws(GatewayConfigError) {
        let mark = YAMLMark(line: event.start_mark.line + 1, column: event.start_mark.column + 1)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw GatewayConfigError(path: .root, mark: mark, message: "more than one document; a config is one")
            }
        case YAML_ALIAS_EVENT:
            throw GatewayConfigError(path: childPath, mark: mark, message: "aliases (*name) are not supported")
        case YAML_SCALAR_EVENT:
            try count(at: mark)
            let s = event.data.scalar
            let tag = try checkedTag(s.tag, allowed: YAMLScalar.knownTags, at: mark)
            let text = s.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: s.length), as: UTF8.self) } ?? ""
            try attach(YAMLNode(.scalar(YAMLScalar(text: text, style: style(s.style), tag: tag)), at: mark))
        case YAML_SEQUENCE_START_EVENT:
            try open(.sequence([]), tag: event.data.sequence_start.tag, allowed: ["!", "tag:yaml.org,2002:seq"], at: mark)
        case YAML_MAPPING_START_EVENT:
            try open(.mapping([], pendingKey: nil, keys: []), tag: event.data.mapping_start.tag,
                     allowed: ["!", "tag:yaml.org,2002:map"], at: mark)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return }
            switch frame.kind {
            case .sequence(let items):
                try attach(YAMLNode(.sequence(items), at: frame.mark))
            case .mapping(let entries, _, _):
                try attach(YAMLNode(.mapping(entries), at: frame.mark))
            }
        default:
            break
        }
    }

    /// The path of the node that arrives next.
    var childPath: ConfigPath {
        guard let top = stack.last else { return .root }
        switch top.kind {
        case .sequence(let items): return top.path.appending(index: items.count)
        case .mapping(_, let key?, _): return top.path.appending(key.0)
        case .mapping: return top.path
        }
    }

    mutating func count(at mark: YAMLMark) throws(GatewayConfigError) {
        nodes += 1
        if nodes > limits.maxNodes {
            throw GatewayConfigError(path: childPath, mark: mark, message: "more than \(limits.maxNodes) nodes")
        }
    }

    mutating func open(_ kind: Frame.Kind, tag: UnsafeMutablePointer<yaml_char_t>?, allowed: Set<String>,
                       at mark: YAMLMark) throws(GatewayConfigError) {
        try count(at: mark)
        _ = try checkedTag(tag, allowed: allowed, at: mark)
        if case .mapping(_, nil, _)? = stack.last?.kind {
            throw GatewayConfigError(path: childPath, mark: mark, message: "a mapping key must be a scalar")
        }
        if stack.count >= limits.maxDepth {
            throw GatewayConfigError(path: childPath, mark: mark, message: "nested deeper than \(limits.maxDepth) levels")
        }
        stack.append(Frame(kind: kind, mark: mark, path: childPath))
    }

    mutating func attach(_ node: YAMLNode) throws(GatewayConfigError) {
        guard var top = stack.popLast() else {
            root = node
            return
        }
        defer { stack.append(top) }
        switch top.kind {
        case .sequence(var items):
            top.kind = .sequence([])  // lets `items` be uniquely referenced while it grows
            items.append(node)
            top.kind = .sequence(items)
        case .mapping(var entries, let pending, var keys):
            top.kind = .sequence([])
            if let (key, keyMark) = pending {
                entries.append(YAMLMappingEntry(key: key, keyMark: keyMark, value: node))
                top.kind = .mapping(entries, pendingKey: nil, keys: keys)
            } else {
                guard case .scalar(let scalar) = node.content else {
                    top.kind = .mapping(entries, pendingKey: nil, keys: keys)
                    throw GatewayConfigError(path: top.path, mark: node.mark, message: "a mapping key must be a scalar")
                }
                guard keys.insert(scalar.text).inserted else {
                    top.kind = .mapping(entries, pendingKey: nil, keys: keys)
                    throw GatewayConfigError(path: top.path.appending(scalar.text), mark: node.mark,
                                             message: "duplicate key")
                }
                top.kind = .mapping(entries, pendingKey: (scalar.text, node.mark), keys: keys)
            }
        }
    }

    func checkedTag(_ raw: UnsafeMutablePointer<yaml_char_t>?, allowed: Set<String>,
                    at mark: YAMLMark) throws(GatewayConfigError) -> String? {
        guard let raw else { return nil }
        let tag = String(cString: raw)
        guard allowed.contains(tag) else {
            throw GatewayConfigError(path: childPath, mark: mark, message: "unsupported tag \(quoted(tag))")
        }
        return tag
    }

    func style(_ s: yaml_scalar_style_t) -> YAMLScalar.Style {
        switch s {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }

    /// libyaml's own message ("did not find expected key while parsing a block mapping"),
    /// at its position, under the path being read.
    func parserError(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>) -> GatewayConfigError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        if parser.error == YAML_READER_ERROR {
            return GatewayConfigError(path: childPath, mark: YAMLLoader.mark(ofOffset: parser.problem_offset, in: bytes),
                                      message: problem)
        }
        if parser.error == YAML_MEMORY_ERROR {
            return GatewayConfigError(path: childPath, mark: nil, message: "libyaml ran out of memory")
        }
        let context = parser.context.map { " " + String(cString: $0) } ?? ""
        let m = parser.problem_mark
        return GatewayConfigError(path: childPath,
                                  mark: YAMLMark(line: m.line + 1, column: m.column + 1),
                                  message: problem + context)
    }
}
