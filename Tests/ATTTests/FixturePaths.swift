import Foundation

/// Locates the project's Fixtures folder from this source file, so tests run from any
/// working directory.
enum FixturePaths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Fixtures")
    static let vectors = fixtures.appendingPathComponent("conformance/gatt-vectors.json")
}
