/// A scalar as written: its text, how it was quoted and any explicit tag.
///
/// The style is kept because it decides the type: a plain `42` is a number, but `"42"` and
/// `'0x2a'` stay strings, as YAML requires (YAML 1.2 §10.3.2 resolves only plain scalars).
public struct YAMLScalar: Hashable, Sendable {
    /// How the scalar was written.
    public enum Style: Hashable, Sendable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// The scalar's value after YAML's unescaping and folding.
    public let text: String
    public let style: Style
    /// The explicit tag, expanded (`tag:yaml.org,2002:str` for `!!str`); nil when there was none.
    public let tag: String?

    public init(text: String, style: Style = .plain, tag: String? = nil) {
        self.text = text
        self.style = style
        self.tag = tag
    }

    /// The tags the loader accepts. Anything else is an error, so no file can ask for a type
    /// this loader does not know.
    static let knownTags: Set<String> = [
        "!", strTag, intTag, floatTag, boolTag, nullTag,
    ]
    static let strTag = "tag:yaml.org,2002:str"
    static let intTag = "tag:yaml.org,2002:int"
    static let floatTag = "tag:yaml.org,2002:float"
    static let boolTag = "tag:yaml.org,2002:bool"
    static let nullTag = "tag:yaml.org,2002:null"

    /// The value under the YAML 1.2 core schema (§10.3.2), which JSON also satisfies: only
    /// plain scalars resolve to null, booleans and numbers; quoted ones and `!!str` are strings.
    /// An explicit `!!int`, `!!float`, `!!bool` or `!!null` whose text does not fit is `.invalid`.
    public var value: YAMLValue {
        switch tag {
        case Self.strTag?, "!"?:
            return .string(text)
        case Self.intTag?:
            return Self.integer(text).map { .integer($0) } ?? .invalid
        case Self.floatTag?:
            if let v = Self.integer(text) { return .number(Double(v)) }
            return Self.float(text).map { .number($0) } ?? .invalid
        case Self.boolTag?:
            return Self.boolean(text).map { .boolean($0) } ?? .invalid
        case Self.nullTag?:
            return Self.isNull(text) ? .null : .invalid
        default:
            break
        }
        guard style == .plain else { return .string(text) }
        if Self.isNull(text) { return .null }
        if let b = Self.boolean(text) { return .boolean(b) }
        if let i = Self.integer(text) { return .integer(i) }
        if let d = Self.float(text) { return .number(d) }
        return .string(text)
    }

    static func isNull(_ text: String) -> Bool {
        text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    static func boolean(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+`; nil when it does not fit in an Int.
    static func integer(_ text: String) -> Int? {
        if text.hasPrefix("0x") { return Int(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("0o") { return Int(text.dropFirst(2), radix: 8) }
        var digits = Substring(text)
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// The core schema's float forms: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`,
    /// `.inf` and `.nan` in their three spellings. Swift's `Double(_:)` alone would also take
    /// `nan`, `infinity` and hex floats, which YAML does not.
    static func float(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        var rest = Substring(text)
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        let mantissa = rest.prefix { $0 != "e" && $0 != "E" }
        let exponent = rest.dropFirst(mantissa.count)
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits: (Substring) -> Bool = { $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard parts.allSatisfy(isDigits), parts.contains(where: { !$0.isEmpty }) else { return nil }
        if !exponent.isEmpty {
            var e = exponent.dropFirst()
            if e.first == "-" || e.first == "+" { e = e.dropFirst() }
            guard !e.isEmpty, isDigits(e) else { return nil }
        }
        return Double(text)
    }
}

/// A scalar's resolved value (see `YAMLScalar.value`).
public enum YAMLValue: Hashable, Sendable {
    case null
    case boolean(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    /// An explicit type tag whose text does not parse as that type.
    case invalid
}
