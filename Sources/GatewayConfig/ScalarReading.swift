import BluetoothCore

/// Reading typed scalars out of nodes, each failure an error at the node's path and mark.
/// Type checks follow YAML's resolution: a quoted `"5"` is a string, not a number.
enum Read {
    static func fail(_ node: YAMLNode, _ path: ConfigPath, _ message: String) -> GatewayConfigError {
        GatewayConfigError(path: path, mark: node.mark, message: message)
    }

    static func scalar(_ node: YAMLNode, _ path: ConfigPath, expected: String) throws(GatewayConfigError) -> YAMLScalar {
        guard case .scalar(let s) = node.content else {
            throw fail(node, path, "expected \(expected), got \(node.kindDescription)")
        }
        return s
    }

    /// Any scalar but null, as its text: `name: 42` is the name "42", and a UUID written
    /// plain as `2902` (a number to YAML) reads as the UUID it spells.
    static func text(_ node: YAMLNode, _ path: ConfigPath, maxLength: Int = 4096) throws(GatewayConfigError) -> String {
        let s = try scalar(node, path, expected: "a string")
        switch s.value {
        case .null: throw fail(node, path, "expected a string, got null")
        case .invalid: throw fail(node, path, "does not match its tag")
        default: break
        }
        guard s.text.utf8.count <= maxLength else {
            throw fail(node, path, "longer than \(maxLength) bytes")
        }
        return s.text
    }

    static func bool(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> Bool {
        let s = try scalar(node, path, expected: "true or false")
        guard case .boolean(let b) = s.value else {
            throw fail(node, path, "expected true or false, got \(node.kindDescription)")
        }
        return b
    }

    static func integer(_ node: YAMLNode, _ path: ConfigPath, in range: ClosedRange<Int>) throws(GatewayConfigError) -> Int {
        let s = try scalar(node, path, expected: "an integer")
        guard case .integer(let i) = s.value else {
            throw fail(node, path, "expected an integer, got \(node.kindDescription)")
        }
        guard range.contains(i) else {
            throw fail(node, path, "\(i) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return i
    }

    /// A finite number, integer or not.
    static func number(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> Double {
        let s = try scalar(node, path, expected: "a number")
        switch s.value {
        case .integer(let i): return Double(i)
        case .number(let d) where d.isFinite: return d
        case .number: throw fail(node, path, "expected a finite number")
        default: throw fail(node, path, "expected a number, got \(node.kindDescription)")
        }
    }

    /// One of `choices`' raw values, listed in the error.
    static func choice<E: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ path: ConfigPath,
                                                           _ type: E.Type) throws(GatewayConfigError) -> E
    where E.RawValue == String {
        let t = try text(node, path, maxLength: 64)
        guard let value = E(rawValue: t) else {
            let names = E.allCases.map(\.rawValue)
            throw fail(node, path, "\(quoted(t)) is not one of " + names.joined(separator: ", "))
        }
        return value
    }

    static func sequence(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> [YAMLNode] {
        guard case .sequence(let items) = node.content else {
            throw fail(node, path, "expected a sequence, got \(node.kindDescription)")
        }
        return items
    }

    static func uuid(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> BluetoothUUID {
        guard let uuid = BluetoothUUID(try text(node, path, maxLength: 64)) else {
            throw fail(node, path, "not a UUID")
        }
        return uuid
    }

    static func address(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> BluetoothAddress {
        guard let address = BluetoothAddress(try text(node, path, maxLength: 64)) else {
            throw fail(node, path, "not a Bluetooth address (AA:BB:CC:DD:EE:FF)")
        }
        return address
    }

    /// 32 hex digits: a 128-bit key, its bytes in the order written.
    static func key128(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> Key128 {
        // The text is not echoed: it is a key.
        guard let key = Key128(hex: try text(node, path, maxLength: 128)) else {
            throw fail(node, path, "not 32 hex digits (a 16-byte key)")
        }
        return key
    }

    /// `250ms`, `10s`, `10m`, `1h` or a bare number of seconds (plain or quoted), exactly as
    /// written (decimals are read as decimals, not through a binary float).
    static func duration(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> Duration {
        let s = try scalar(node, path, expected: "a duration")
        let parsed: Duration?
        switch s.value {
        case .integer, .number, .string: parsed = DurationText.parse(s.text)
        default: parsed = nil
        }
        guard let parsed else {
            throw fail(node, path, "not a duration (like 250ms, 10s, 10m, 1h, or a number of seconds) "
                + "greater than 0 and at most 7 days")
        }
        return parsed
    }

    /// A name that is safe as one MQTT topic level: not empty, no `/`, `+`, `#`, no control
    /// characters, not starting with `$` (reserved for broker topics, MQTT 5 §4.7.2).
    static func topicLevel(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> String {
        let t = try text(node, path, maxLength: 128)
        if let problem = topicLevelProblem(t) { throw fail(node, path, problem) }
        return t
    }

    /// Levels separated by `/`, each one a topic level (for `base` and the discovery prefix).
    static func topicPrefix(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> String {
        let t = try text(node, path, maxLength: 256)
        for level in t.split(separator: "/", omittingEmptySubsequences: false) {
            if let problem = topicLevelProblem(String(level)) {
                throw fail(node, path, problem + " (in \(quoted(t)))")
            }
        }
        return t
    }

    static func topicLevelProblem(_ t: String) -> String? {
        if t.isEmpty { return "empty (not usable in an MQTT topic)" }
        if t.hasPrefix("$") { return "starts with $ (reserved by MQTT brokers)" }
        for scalar in t.unicodeScalars {
            switch scalar {
            case "/", "+", "#":
                return "contains \(scalar) (not usable in an MQTT topic level)"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                return "contains a control character"
            case _ where scalar == " " && (t.first == " " || t.last == " "):
                return "starts or ends with a space"
            default:
                continue
            }
        }
        return nil
    }
}
