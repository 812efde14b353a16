import Foundation

/// The repository's Fixtures folder, found from this source file so that tests run from
/// any working directory: the one locator every test target that reads fixtures shares.
public enum Fixtures {
    /// `Fixtures/`, at the top of the repository.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The shared conformance vectors, `conformance/gatt-vectors.json`.
    public static let vectors = root.appendingPathComponent("conformance/gatt-vectors.json").path
    /// The databases those vectors name, `conformance/gatt-dbs.json`.
    public static let databases = root.appendingPathComponent("conformance/gatt-dbs.json").path

    /// Every capture under `captures/`, kernel/ included, by relative path.
    public static let captures: [String] = {
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

    /// The path of the capture `name` (relative to `captures/`).
    public static func capturePath(_ name: String) -> String {
        root.appendingPathComponent("captures").appendingPathComponent(name).path
    }

    /// The bytes of the capture `name`.
    public static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: capturePath(name))))
    }
}
