import SensorDecoding
import Testing
@testable import GatewayConfig

/// The loader itself: limits, aliases, encodings, duplicate keys, scalar styles and tags.
@Suite struct YAMLLoaderTests {
    func loadError(_ bytes: [UInt8], limits: YAMLLimits = YAMLLimits()) -> GatewayConfigError? {
        do {
            _ = try YAMLLoader.load(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func quotedScalarsStayStrings() throws {
        let node = try YAMLLoader.load(Array("a: 0x2a\nb: \"0x2a\"\nc: '42'\nd: !!str 42\ne: 4.5\nf: true\ng: ~\nh: 1e3\ni: .5\n".utf8))
        guard case .mapping(let entries) = node.content else {
            Issue.record("not a mapping")
            return
        }
        let values = entries.map { entry -> YAMLValue in
            guard case .scalar(let s) = entry.value.content else { return .invalid }
            return s.value
        }
        #expect(values == [.integer(42), .string("0x2a"), .string("42"), .string("42"), .number(4.5), .boolean(true),
                           .null, .number(1000), .number(0.5)])
        #expect(entries.map(\.key) == ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
        #expect(entries[1].value.mark == YAMLMark(line: 2, column: 4))
    }

    @Test func duplicateKeysAreErrors() {
        #expect(loadError(Array("a: 1\nb: {c: 1, c: 2}\n".utf8))?.description == "b.c: duplicate key")
        #expect(loadError(Array("a: 1\na: 2\n".utf8))?.description == "a: duplicate key")
        #expect(loadError(Array("{\"a\": 1, \"a\": 1}".utf8))?.mark == YAMLMark(line: 1, column: 10))
    }

    /// Nesting deeper than the limit stops at the limit, for flow and block style alike,
    /// even when the file is as large as allowed.
    @Test func deepNestingIsRefused() {
        let flow = Array(repeating: UInt8(ascii: "["), count: 4 << 20)
        #expect(loadError(flow)?.description == String(repeating: "[0]", count: 64) + ": nested deeper than 64 levels")
        var block = ""
        for i in 0..<100 { block += String(repeating: " ", count: i) + "k\(i):\n" }
        let error = loadError(Array(block.utf8))
        #expect(error?.message == "nested deeper than 64 levels")
        #expect(error?.line == 65)
        // 64 levels are fine.
        #expect(loadError(Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8)) == nil)
    }

    /// The "billion laughs": every alias is refused, so nothing expands.
    @Test func aliasBombIsRefused() {
        var bomb = "a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
        var previous = "a"
        for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
            bomb += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
            previous = name
        }
        let error = loadError(Array(bomb.utf8))
        #expect(error?.description == "b[0]: aliases (*name) are not supported")
        #expect(error?.line == 2)
        // An anchor alone is harmless and accepted.
        #expect(loadError(Array("a: &x 1\n".utf8)) == nil)
    }

    @Test func binaryAndNonUTF8AreRefused() {
        #expect(loadError([0x61, 0x3A, 0x20, 0xC3, 0x28])?.description == "not UTF-8 text (byte 3)")
        #expect(loadError([0x61, 0x3A, 0xFF, 0xFE])?.description == "not UTF-8 text (byte 2)")
        #expect(loadError([0xFF, 0xFE, 0x61, 0x00])?.description
                == "the file starts with a UTF-16 (little-endian) byte order mark; save the file as UTF-8")
        let nul = loadError(Array("a: 1\nb: \u{0}\n".utf8))
        #expect(nul?.message == "control characters are not allowed")
        #expect(nul?.line == 2)
        // Random bytes never trap, whatever they are.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            var bytes: [UInt8] = []
            for _ in 0..<64 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 56))
            }
            _ = loadError(bytes)
        }
        // A UTF-8 byte order mark is fine.
        #expect(loadError([0xEF, 0xBB, 0xBF] + Array("a: 1\n".utf8)) == nil)
    }

    @Test func limitsOnSizeAndNodes() {
        #expect(loadError(Array(repeating: UInt8(ascii: " "), count: 11), limits: YAMLLimits(maxBytes: 10))?.description
            == "the file is 11 bytes; at most 10")
        #expect(loadError(Array("[1, 2, 3, 4]".utf8), limits: YAMLLimits(maxNodes: 4))?.description == "[3]: more than 4 nodes")
    }

    @Test func syntaxErrorsHaveLibyamlsWordsAndPosition() {
        let error = loadError(Array("a: 1\nb: [1, 2\nc: 3\n".utf8))
        #expect(error?.message == "did not find expected ',' or ']' while parsing a flow sequence")
        #expect(error?.path == ConfigPath.root.appending("b").appending(index: 2))
        #expect(error?.line == 3)
        #expect(loadError(Array("a: 1\n---\nb: 2\n".utf8))?.description == "more than one document; a config is one")
        #expect(loadError(Array("a: !custom 1\n".utf8))?.description == "a: unsupported tag \"!custom\"")
        #expect(loadError(Array("? [1]\n: 2\n".utf8))?.message == "a mapping key must be a scalar")
    }
}

/// The UTF-8 check agrees with the standard library's decoder on every short sequence.
@Suite struct UTF8CheckTests {
    @Test func agreesWithTheStandardLibrary() {
        var state: UInt64 = 12345
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<6 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                // Mostly bytes around the interesting lead and continuation ranges.
                let r = UInt8(truncatingIfNeeded: state >> 56)
                bytes.append(r < 64 ? 0x80 | (r & 0x3F) : r)
            }
            let ours = YAMLLoader.firstInvalidUTF8(bytes) == nil
            let stdlib = String(validating: bytes, as: UTF8.self) != nil
            #expect(ours == stdlib, "\(bytes)")
        }
        #expect(YAMLLoader.firstInvalidUTF8([0xED, 0xA0, 0x80]) == 0)  // a surrogate
        #expect(YAMLLoader.firstInvalidUTF8([0x41, 0xC0, 0x80]) == 1)  // overlong NUL
        #expect(YAMLLoader.firstInvalidUTF8([0xF4, 0x90, 0x80, 0x80]) == 0)  // above U+10FFFF
        #expect(YAMLLoader.firstInvalidUTF8(Array("héllo €𝄞".utf8)) == nil)
    }
}
