import Foundation

/// Locates the project's Fixtures folder from this source file.
enum FixturePaths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let vectors = root.appendingPathComponent("Fixtures/conformance/gatt-vectors.json").path
    static let databases = root.appendingPathComponent("Fixtures/conformance/gatt-dbs.json").path
}
