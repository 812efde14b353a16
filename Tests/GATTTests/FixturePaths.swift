import Foundation

/// Locates the project's Fixtures folder from this source file.
enum FixturePaths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let vectors = root.appendingPathComponent("Fixtures/conformance/gatt-vectors.json").path
    static let databases = root.appendingPathComponent("Fixtures/conformance/gatt-dbs.json").path
}

func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = hex.filter { !$0.isWhitespace }.makeIterator()
    while let a = chars.next(), let b = chars.next() {
        out.append(UInt8(String([a, b]), radix: 16)!)
    }
    return out
}
