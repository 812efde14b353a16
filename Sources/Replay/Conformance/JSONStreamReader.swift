#if canImport(Glibc)
import Glibc
#endif
import ATTPresentation

/// Reads a JSON document from a file a chunk at a time, so that a large array can be
/// taken one element at a time: memory holds one element, not the file. Every error
/// names the JSON path and the byte offset where it was found, and none traps:
/// nesting is limited, numbers that do not fit a Double are refused rather than taken as
/// infinity, and strings must be valid UTF-8 with valid escapes.
struct JSONStreamReader {
    /// Deeper documents are refused (the vectors nest a few levels; the limit keeps a
    /// hostile file from exhausting the stack).
    static let maximumDepth = 64

    struct Failure: Error {
        var path: String
        var offset: Int
        var reason: String

        var description: String { "\(path) at byte \(offset): \(reason)" }
    }

    let descriptor: Int32
    var buffer: [UInt8] = []
    var index = 0
    /// File offset of `buffer[0]`.
    var base = 0
    var atEnd = false

    init(path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: "$", offset: 0, reason: "cannot open: errno \(errno)") }
        descriptor = fd
    }

    /// Reads a document already in memory.
    init(bytes: [UInt8]) {
        descriptor = -1
        buffer = bytes
        atEnd = true
    }

    func close() { if descriptor >= 0 { _ = Glibc.close(descriptor) } }

    var offset: Int { base + index }

    /// The next byte without consuming it; nil at the end of the file.
    mutating func peek() -> UInt8? {
        if index < buffer.count { return buffer[index] }
        guard !atEnd else { return nil }
        base += buffer.count
        buffer.removeAll(keepingCapacity: true)
        index = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard n > 0 else {
            atEnd = true
            return nil
        }
        buffer = Array(chunk[..<n])
        return buffer[0]
    }

    mutating func advance() { index += 1 }

    mutating func skipSpace() {
        while let b = peek(), b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { advance() }
    }

    func fail(_ path: String, _ reason: String, at offset: Int? = nil) -> Failure {
        Failure(path: path, offset: offset ?? self.offset, reason: reason)
    }

    mutating func expect(_ byte: UInt8, _ path: String, _ what: String) throws(Failure) {
        skipSpace()
        guard peek() == byte else { throw fail(path, "syntax error: expected \(what), found \(found())") }
        advance()
    }

    mutating func found() -> String {
        guard let b = peek() else { return "the end of the file" }
        if b >= 0x21 && b < 0x7F { return "'\(String(UnicodeScalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    // MARK: - Objects and arrays, member by member

    /// Reads `{`, then for each member calls `member(key, path)`, which must consume the
    /// member's value; then `}`.
    mutating func object(_ path: String, depth: Int,
                         _ member: (inout JSONStreamReader, String, String) throws(Failure) -> Void) throws(Failure) {
        guard depth < Self.maximumDepth else { throw fail(path, "nesting deeper than \(Self.maximumDepth) levels") }
        try expect(0x7B, path, "'{'")
        skipSpace()
        if peek() == 0x7D { advance(); return }
        while true {
            skipSpace()
            guard peek() == 0x22 else { throw fail(path, "syntax error: expected a member name in quotes, found \(found())") }
            let key = try string(path)
            try expect(0x3A, path, "':' after \"\(key.prefix(40))\"")
            try member(&self, key, path + "." + (key.count > 40 ? key.prefix(40) + "…" : key))
            skipSpace()
            if peek() == 0x2C { advance(); continue }
            if peek() == 0x7D { advance(); return }
            throw fail(path, "syntax error: expected ',' or '}', found \(found())")
        }
    }

    /// Reads `[`, then calls `element(index, path)` for each element; then `]`.
    mutating func array(_ path: String, depth: Int,
                        _ element: (inout JSONStreamReader, Int, String) throws(Failure) -> Void) throws(Failure) {
        guard depth < Self.maximumDepth else { throw fail(path, "nesting deeper than \(Self.maximumDepth) levels") }
        try expect(0x5B, path, "'['")
        skipSpace()
        if peek() == 0x5D { advance(); return }
        var i = 0
        while true {
            try element(&self, i, "\(path)[\(i)]")
            i += 1
            skipSpace()
            if peek() == 0x2C { advance(); continue }
            if peek() == 0x5D { advance(); return }
            throw fail(path, "syntax error: expected ',' or ']', found \(found())")
        }
    }

    // MARK: - Whole values

    /// One value, whole.
    mutating func value(_ path: String, depth: Int) throws(Failure) -> JSONValue {
        skipSpace()
        switch peek() {
        case 0x7B?:
            var pairs: [(String, JSONValue)] = []
            try object(path, depth: depth) { (r: inout JSONStreamReader, key: String, p: String) throws(Failure) in
                pairs.append((key, try r.value(p, depth: depth + 1)))
            }
            return .object(pairs)
        case 0x5B?:
            var items: [JSONValue] = []
            try array(path, depth: depth) { (r: inout JSONStreamReader, _: Int, p: String) throws(Failure) in
                items.append(try r.value(p, depth: depth + 1))
            }
            return .array(items)
        case 0x22?:
            return .string(try string(path))
        case 0x74?: try literal("true", path); return .bool(true)
        case 0x66?: try literal("false", path); return .bool(false)
        case 0x6E?: try literal("null", path); return .null
        case let b? where b == 0x2D || (0x30...0x39).contains(b):
            return try number(path)
        default:
            throw fail(path, "syntax error: expected a value, found \(found())")
        }
    }

    mutating func literal(_ word: String, _ path: String) throws(Failure) {
        let start = offset
        for byte in word.utf8 {
            guard peek() == byte else { throw fail(path, "syntax error: expected \(word)", at: start) }
            advance()
        }
    }

    /// A number: an integer when it is whole and fits, else a finite Double.
    mutating func number(_ path: String) throws(Failure) -> JSONValue {
        let start = offset
        var text: [UInt8] = []
        while let b = peek(), (0x30...0x39).contains(b) || b == 0x2D || b == 0x2B || b == 0x2E || b == 0x65 || b == 0x45 {
            guard text.count < 400 else { throw fail(path, "number too long", at: start) }
            text.append(b)
            advance()
        }
        let s = String(decoding: text, as: UTF8.self)
        if let i = Int(s) { return .int(i) }
        guard Self.isNumberSyntax(text), let d = Double(s) else { throw fail(path, "syntax error: \(s) is not a number", at: start) }
        guard d.isFinite else { throw fail(path, "number \(s) is out of range", at: start) }
        if d == d.rounded(), abs(d) < 9.0e15 { return .int(Int(d)) }
        return .double(d)
    }

    /// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    static func isNumberSyntax(_ t: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let s = i
            while i < t.count, (0x30...0x39).contains(t[i]) { i += 1 }
            return i - s
        }
        if i < t.count, t[i] == 0x2D { i += 1 }
        guard i < t.count else { return false }
        if t[i] == 0x30 { i += 1 } else if digits() == 0 { return false }
        if i < t.count, t[i] == 0x2E { i += 1; if digits() == 0 { return false } }
        if i < t.count, t[i] == 0x65 || t[i] == 0x45 {
            i += 1
            if i < t.count, t[i] == 0x2B || t[i] == 0x2D { i += 1 }
            if digits() == 0 { return false }
        }
        return i == t.count
    }

    /// A string, escapes decoded; at most 1 MiB.
    mutating func string(_ path: String) throws(Failure) -> String {
        let start = offset
        try expect(0x22, path, "'\"'")
        var bytes: [UInt8] = []
        while true {
            guard let b = peek() else { throw fail(path, "syntax error: unterminated string", at: start) }
            advance()
            guard bytes.count < 1 << 20 else { throw fail(path, "string longer than 1 MiB", at: start) }
            switch b {
            case 0x22:
                guard let s = String(validating: bytes, as: UTF8.self) else {
                    throw fail(path, "string is not valid UTF-8", at: start)
                }
                return s
            case 0x5C:
                guard let e = peek() else { throw fail(path, "syntax error: unterminated string", at: start) }
                advance()
                switch e {
                case 0x22, 0x5C, 0x2F: bytes.append(e)
                case 0x62: bytes.append(0x08)
                case 0x66: bytes.append(0x0C)
                case 0x6E: bytes.append(0x0A)
                case 0x72: bytes.append(0x0D)
                case 0x74: bytes.append(0x09)
                case 0x75:
                    var scalar = try hex4(path)
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A surrogate pair: \uD83D\uDE00.
                        try expect(0x5C, path, "the low surrogate of \\u\(String(scalar, radix: 16))")
                        try expect(0x75, path, "the low surrogate of \\u\(String(scalar, radix: 16))")
                        let low = try hex4(path)
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail(path, "invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail(path, "invalid escape \\u\(String(scalar, radix: 16))") }
                    bytes += Array(String(Character(u)).utf8)
                default:
                    throw fail(path, "syntax error: invalid escape in string")
                }
            case 0x00..<0x20:
                throw fail(path, "syntax error: control character in string")
            default:
                bytes.append(b)
            }
        }
    }

    mutating func hex4(_ path: String) throws(Failure) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let b = peek(), let d = UInt8(String(UnicodeScalar(b)), radix: 16) else {
                throw fail(path, "syntax error: \\u needs four hex digits")
            }
            advance()
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// After the document: only white space.
    mutating func end() throws(Failure) {
        skipSpace()
        guard peek() == nil else { throw fail("$", "syntax error: \(found()) after the document") }
    }
}
