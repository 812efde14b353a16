import Foundation

/// Where a JSON text first breaks the grammar of RFC 8259, and how: JSONSerialization's
/// own error on Linux says only "not in the correct format", which leaves a user
/// searching a long database file by hand.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Bytes from the start of the file to the fault.
    public var offset: Int
    /// 1-based line of the fault.
    public var line: Int
    /// 1-based column of the fault, in Unicode scalars (what an editor shows).
    public var column: Int
    /// What was wrong there.
    public var reason: String

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
        guard let (offset, reason) = scanner.run() else { return nil }
        return at(offset, reason, in: b)
    }

    /// The error at `offset`, with its line and column counted from the text.
    static func at(_ offset: Int, _ reason: String, in b: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError {
        var line = 1, column = 1
        for byte in b.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(offset: offset, line: line, column: column, reason: reason)
    }

    private struct Scanner {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0
        /// The open containers, innermost last: `{` or `[`.
        var stack: [UInt8] = []

        init(b: UnsafeBufferPointer<UInt8>) {
            self.b = b
            // A leading UTF-8 byte order mark is no syntax error (RFC 8259 §8.1 lets a parser ignore it).
            if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        }

        /// What comes next: a value, one that may instead close an array, a member name
        /// that may instead close an object, or a comma or a close.
        enum Expect { case value, firstValue, firstKey, afterValue }

        /// The offset and reason of the first error, or nil.
        mutating func run() -> (Int, String)? {
            var expect = Expect.value
            while true {
                skipSpace()
                switch expect {
                case .value, .firstValue:
                    guard i < b.count else { return (i, stack.isEmpty ? "no JSON value: the file is empty" : endsInside()) }
                    if expect == .firstValue, b[i] == UInt8(ascii: "]") {
                        stack.removeLast()
                        i += 1
                        expect = .afterValue
                        continue
                    }
                    switch b[i] {
                    case UInt8(ascii: "{"): stack.append(b[i]); i += 1; expect = .firstKey
                    case UInt8(ascii: "["): stack.append(b[i]); i += 1; expect = .firstValue
                    case UInt8(ascii: "\""): if let e = string() { return e }; expect = .afterValue
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): if let e = number() { return e }; expect = .afterValue
                    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): if let e = literal() { return e }; expect = .afterValue
                    default: return (i, "expected a value, found \(found())")
                    }
                case .firstKey:
                    guard i < b.count else { return (i, endsInside()) }
                    if b[i] == UInt8(ascii: "}") {
                        stack.removeLast()
                        i += 1
                        expect = .afterValue
                        continue
                    }
                    guard b[i] == UInt8(ascii: "\"") else { return (i, "expected a member name in double quotes, found \(found())") }
                    if let e = string() { return e }
                    skipSpace()
                    guard i < b.count else { return (i, endsInside()) }
                    guard b[i] == UInt8(ascii: ":") else { return (i, "expected ':' after the member name, found \(found())") }
                    i += 1
                    expect = .value
                case .afterValue:
                    guard let open = stack.last else {
                        return i < b.count ? (i, "\(found()) after the end of the JSON value") : nil
                    }
                    guard i < b.count else { return (i, endsInside()) }
                    let close = open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if b[i] == close {
                        stack.removeLast()
                        i += 1
                    } else if b[i] == UInt8(ascii: ",") {
                        i += 1
                        // JSONSerialization takes a trailing comma; so does this, or a file
                        // refused for another reason would be blamed on one.
                        expect = open == UInt8(ascii: "{") ? .firstKey : .firstValue
                    } else {
                        return (i, "expected ',' or '\(Character(UnicodeScalar(close)))', found \(found())")
                    }
                }
            }
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
