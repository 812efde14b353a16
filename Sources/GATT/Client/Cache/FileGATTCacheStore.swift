import Foundation

/// A cache kept as one JSON file per peer in a directory, so a gateway daemon skips
/// discovery after a restart when the Database Hash still matches.
///
/// Files are written to a temporary name and renamed, so a crash never leaves a torn
/// file; a file that does not parse is treated as absent (and discovery runs again).
public struct FileGATTCacheStore: GATTCacheStore {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    func url(_ peer: GATTPeerIdentity) -> URL { directory.appendingPathComponent(peer.fileName) }

    public func database(for peer: GATTPeerIdentity) throws -> DiscoveredDatabase? {
        guard let data = try? Data(contentsOf: url(peer)) else { return nil }
        return try? JSONDecoder().decode(CachedDatabase.self, from: data).database
    }

    public func store(_ database: DiscoveredDatabase, for peer: GATTPeerIdentity) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(CachedDatabase(peer: peer, database: database))
        let temporary = directory.appendingPathComponent(".\(peer.fileName).\(ProcessInfo.processInfo.processIdentifier).tmp")
        try data.write(to: temporary)
        _ = try? FileManager.default.removeItem(at: url(peer))
        try FileManager.default.moveItem(at: temporary, to: url(peer))
    }

    public func removeDatabase(for peer: GATTPeerIdentity) throws {
        if FileManager.default.fileExists(atPath: url(peer).path) {
            try FileManager.default.removeItem(at: url(peer))
        }
    }
}
