import Foundation

/// Locates the repository's Fixtures directory from this source file.
enum Fixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Every capture under Fixtures/captures, kernel/ included, by relative path.
    static let captures: [String] = {
        let base = root.appendingPathComponent("captures")
        var found: [String] = []
        if let walker = FileManager.default.enumerator(atPath: base.path) {
            for case let path as String in walker where path.hasSuffix(".btsnoop") || path.hasSuffix(".pcap")
                || path.hasSuffix(".pcapng") {
                found.append(path)
            }
        }
        return found.sorted()
    }()

    static func capturePath(_ name: String) -> String {
        root.appendingPathComponent("captures").appendingPathComponent(name).path
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: capturePath(name))))
    }
}

/// A scratch directory for files a test writes.
func temporaryPath(_ name: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("attune-capture-tests-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
}
