import Foundation
import GATT

/// A cache kept as one JSON file per peer in a directory, so a gateway daemon skips
/// discovery after a restart when the Database Hash still matches.
///
/// Files are written to a temporary name and renamed, so a crash never leaves a torn
/// file; a file that does not parse is treated as absent (and discovery runs again).
public struct FileGATTCacheStore: GATTCacheStore {
    /// The directory holding one file per peer; created on the first store.
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    func url(_ peer: PeerIdentity) -> URL { directory.appendingPathComponent(peer.cacheFileName) }

    public func database(for peer: PeerIdentity) throws -> DiscoveredDatabase? {
        guard let data = try? Data(contentsOf: url(peer)) else { return nil }
        return try? JSONDecoder().decode(CachedDatabase.self, from: data).database
    }

    public func store(_ database: DiscoveredDatabase, for peer: PeerIdentity) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(CachedDatabase(peer: peer, database: database))
        let temporary = directory.appendingPathComponent(".\(peer.cacheFileName).\(ProcessInfo.processInfo.processIdentifier).tmp")
        try data.write(to: temporary)
        _ = try? FileManager.default.removeItem(at: url(peer))
        try FileManager.default.moveItem(at: temporary, to: url(peer))
    }

    public func removeDatabase(for peer: PeerIdentity) throws {
        if FileManager.default.fileExists(atPath: url(peer).path) {
            try FileManager.default.removeItem(at: url(peer))
        }
    }
}
