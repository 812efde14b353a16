import Foundation
import Testing

/// The README's Swift examples are the ones `ReadmeExamples.swift` compiles and runs:
/// each README block, after its `import Attune` (and `import Testing`) lines, must appear in that file verbatim.
@Suite("README examples stay compiled")
struct ReadmeSyncTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The contents of every ```swift fence.
    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    @Test func readmeBlocksMatchTheCompiledExamples() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let compiled = try String(contentsOf: Self.root.appendingPathComponent("Tests/AttuneTests/ReadmeExamples.swift"),
                                  encoding: .utf8)
        let blocks = Self.swiftBlocks(readme)
        #expect(blocks.count == 3, "the central, the peripheral and the recorded-peripheral test example")
        #expect(blocks.contains { $0.contains("func centralExample(") })
        #expect(blocks.contains { $0.contains("func peripheralExample(") })
        #expect(blocks.contains { $0.contains("CapturedPeripheral(capture:") && $0.contains("@Test") })
        for block in blocks {
            // `import Attune`, and `import Testing` for the test example, then a blank line.
            let prefix = block.hasPrefix("import Attune\nimport Testing\n\n") ? "import Attune\nimport Testing\n\n"
                : "import Attune\n\n"
            #expect(block.hasPrefix(prefix), "each example starts with its imports")
            let body = String(block.dropFirst(prefix.count))
            #expect(compiled.contains(body), "README block differs from ReadmeExamples.swift:\n\(body.prefix(200))")
        }
    }

    @Test func fenceParserFindsBlocks() {
        let blocks = Self.swiftBlocks("text\n```swift\nlet a = 1\n```\n```\nnot swift\n```\n")
        #expect(blocks == ["let a = 1\n"])
    }
}
