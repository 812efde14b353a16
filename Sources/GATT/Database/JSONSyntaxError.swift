import Foundation

/// Where a JSON text first breaks the grammar of RFC 8259, and how: JSONSerialization's
/// own error on Linux says only "not in the correct format", which leaves a user
/// searching a long database file by hand. The place is given twice: by line, column and
/// byte for an editor, and by JSON path for a reader who knows the file's structure.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Bytes from the start of the file to the fault.
    public var offset: Int
    /// 1-based line of the fault.
    public var line: Int
    /// 1-based column of the fault, in Unicode scalars (what an editor shows).
    public var column: Int
    /// What was wrong there.
    public var reason: String
    /// The JSON path of the value or container the fault is in (`$.services[1].uuid`):
    /// the value being read when one was expected, else the object or array around it.
    /// Member names longer than 40 characters are cut, and a path deeper than 64 levels
    /// keeps its first and last 32 with `…` between.
    public var path: String

    public var description: String { "line \(line), column \(column) (byte offset \(offset)): \(reason)" }

    /// The first syntax error in `data`, or nil when its grammar holds (JSONSerialization
    /// may still refuse it: nesting too deep, invalid UTF-8, a number out of range).
    /// One pass with an explicit stack, so a hostile nesting cannot overflow ours.
    public static func locate(in data: Data) -> JSONSyntaxError? {
        data.withUnsafeBytes { raw in locate(in: raw.bindMemory(to: UInt8.self)) }
    }

    static func locate(in b: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError? {
        // JSONSerialization reads UTF-16 and UTF-32 too, told by a BOM or by the zero bytes
        // of the first characters (RFC 4627 §3); their grammar is not checked here.
        if b.count >= 2, b[0] == 0 || b[1] == 0 || (b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF) {
            return nil
        }
        var scanner = Scanner(b: b)
        guard let (offset, reason, path) = scanner.run() else { return nil }
        return at(offset, reason, path: path, in: b)
    }

    /// The error at `offset`, with its line and column counted from the text.
    static func at(_ offset: Int, _ reason: String, path: String, in b: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError {
        var line = 1, column = 1
        for byte in b.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(offset: offset, line: line, column: column, reason: reason, path: path)
    }

    private struct Scanner {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0
        /// The open containers, innermost last: `{` or `[`.
        var stack: [UInt8] = []
        /// For each open container, the path step to the member being read in it
        /// (`.name` or `[index]`; empty before an object's first name), and the index
        /// an array is at. Kept beside `stack` so the path costs nothing until an error.
        var steps: [(step: String, index: Int)] = []

        init(b: UnsafeBufferPointer<UInt8>) {
            self.b = b
            // A leading UTF-8 byte order mark is no syntax error (RFC 8259 §8.1 lets a parser ignore it).
            if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        }

        /// What comes next: a value, one that may instead close an array, a member name
        /// that may instead close an object, or a comma or a close.
        enum Expect { case value, firstValue, firstKey, afterValue }

        /// Where the error is found: inside the value being read, or in its container.
        enum Place { case value, container }

        /// The offset, reason and JSON path of the first error, or nil.
        mutating func run() -> (Int, String, String)? {
            guard let (offset, reason, place) = scan() else { return nil }
            return (offset, reason, path(place))
        }

        /// The path of the value being read, or of the container around the fault.
        func path(_ place: Place) -> String {
            var parts = steps.map(\.step)
            if place == .container, !parts.isEmpty { parts.removeLast() }
            let limit = 64
            guard parts.count > limit else { return "$" + parts.joined() }
            return "$" + parts.prefix(limit / 2).joined() + "…" + parts.suffix(limit / 2).joined()
        }

        mutating func openContainer(_ container: UInt8) {
            stack.append(container)
            steps.append((container == UInt8(ascii: "[") ? "[0]" : "", 0))
        }

        mutating func closeContainer() {
            stack.removeLast()
            steps.removeLast()
        }

        /// The offset, reason and place of the first error, or nil.
        mutating func scan() -> (Int, String, Place)? {
            var expect = Expect.value
            while true {
                skipSpace()
                switch expect {
                case .value, .firstValue:
                    guard i < b.count else {
                        return (i, stack.isEmpty ? "no JSON value: the file is empty" : endsInside(), .container)
                    }
                    if expect == .firstValue, b[i] == UInt8(ascii: "]") {
                        closeContainer()
                        i += 1
                        expect = .afterValue
                        continue
                    }
                    switch b[i] {
                    case UInt8(ascii: "{"): openContainer(b[i]); i += 1; expect = .firstKey
                    case UInt8(ascii: "["): openContainer(b[i]); i += 1; expect = .firstValue
                    case UInt8(ascii: "\""): if let e = string() { return (e.0, e.1, .value) }; expect = .afterValue
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        if let e = number() { return (e.0, e.1, .value) }; expect = .afterValue
                    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                        if let e = literal() { return (e.0, e.1, .value) }; expect = .afterValue
                    default: return (i, "expected a value, found \(found())", .value)
                    }
                case .firstKey:
                    guard i < b.count else { return (i, endsInside(), .container) }
                    if b[i] == UInt8(ascii: "}") {
                        closeContainer()
                        i += 1
                        expect = .afterValue
                        continue
                    }
                    guard b[i] == UInt8(ascii: "\"") else {
                        return (i, "expected a member name in double quotes, found \(found())", .container)
                    }
                    let nameStart = i
                    if let e = string() { return (e.0, e.1, .container) }
                    steps[steps.count - 1].step = "." + Self.name(b[(nameStart + 1)..<(i - 1)])
                    skipSpace()
                    guard i < b.count else { return (i, endsInside(), .container) }
                    guard b[i] == UInt8(ascii: ":") else {
                        return (i, "expected ':' after the member name, found \(found())", .container)
                    }
                    i += 1
                    expect = .value
                case .afterValue:
                    guard let open = stack.last else {
                        return i < b.count ? (i, "\(found()) after the end of the JSON value", .container) : nil
                    }
                    guard i < b.count else { return (i, endsInside(), .container) }
                    let close = open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if b[i] == close {
                        closeContainer()
                        i += 1
                    } else if b[i] == UInt8(ascii: ",") {
                        i += 1
                        if open == UInt8(ascii: "[") {
                            let next = steps[steps.count - 1].index + 1
                            steps[steps.count - 1] = ("[\(next)]", next)
                        }
                        // JSONSerialization takes a trailing comma; so does this, or a file
                        // refused for another reason would be blamed on one.
                        expect = open == UInt8(ascii: "{") ? .firstKey : .firstValue
                    } else {
                        return (i, "expected ',' or '\(Character(UnicodeScalar(close)))', found \(found())", .container)
                    }
                }
            }
        }

        /// A member name as a path shows it: its text between the quotes, escapes as
        /// written, cut at 40 characters.
        static func name(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
            let text = String(decoding: bytes, as: UTF8.self)
            return text.count > 40 ? text.prefix(40) + "…" : text
        }

        mutating func skipSpace() {
            while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
        }

        func endsInside() -> String {
            "the file ends inside \(stack.last == UInt8(ascii: "{") ? "an object" : "an array")"
        }

        /// The byte at `i` as an error shows it.
        func found() -> String {
            guard i < b.count else { return "the end of the file" }
            let c = b[i]
            return (0x21...0x7E).contains(c) ? "'\(Character(UnicodeScalar(c)))'" : "byte 0x" + String(c, radix: 16, uppercase: true)
        }

        mutating func string() -> (Int, String)? {
            let start = i
            i += 1
            while i < b.count {
                let c = b[i]
                switch c {
                case UInt8(ascii: "\""):
                    i += 1
                    return nil
                case UInt8(ascii: "\\"):
                    guard i + 1 < b.count else { return (start, "the file ends inside a string") }
                    let e = b[i + 1]
                    if e == UInt8(ascii: "u") {
                        for k in 2..<6 {
                            guard i + k < b.count, isHex(b[i + k]) else { return (i, "\\u needs four hex digits") }
                        }
                        i += 6
                    } else if Array("\"\\/bfnrt".utf8).contains(e) {
                        i += 2
                    } else {
                        i += 1
                        return (i, "\(found()) cannot follow a backslash")
                    }
                case 0..<0x20:
                    return (i, "a control character (byte 0x\(String(c, radix: 16, uppercase: true))) inside a string must be escaped")
                default:
                    i += 1
                }
            }
            return (start, "the file ends inside a string")
        }

        func isHex(_ c: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(c)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(c)
        }

        mutating func digits() -> Bool {
            let start = i
            while i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) { i += 1 }
            return i > start
        }

        mutating func number() -> (Int, String)? {
            if b[i] == UInt8(ascii: "-") { i += 1 }
            if i < b.count, b[i] == UInt8(ascii: "0") {
                i += 1
            } else if !digits() {
                return (i, "a number needs a digit here, found \(found())")
            }
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() else { return (i, "a number needs a digit after '.', found \(found())") }
            }
            if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() else { return (i, "a number needs a digit in its exponent, found \(found())") }
            }
            return nil
        }

        mutating func literal() -> (Int, String)? {
            for word in ["true", "false", "null"] {
                let w = Array(word.utf8)
                if b.count - i >= w.count, Array(b[i..<i + w.count]) == w {
                    i += w.count
                    return nil
                }
            }
            return (i, "expected true, false or null, found \(found())")
        }
    }
}
