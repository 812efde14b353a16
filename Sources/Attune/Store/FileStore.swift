import Foundation
import Transport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The default ``Store``: one JSON file per peripheral in a directory, each written
/// atomically (temporary file, fsync, rename, fsync of the directory), so a crash leaves
/// either the old record or the new one, never half of one.
///
/// A file that does not decode is moved aside (`NAME.corrupt-SECONDS`) and reported in
/// ``problems``; the other peripherals load normally and the store stays writable.
public final class FileStore: Store {
    /// Where the record files live.
    public let directory: String
    /// Files that could not be used when the store was opened.
    public let problems: [StoreProblem]
    private let state: Mutex<[UUID: PeripheralRecord]>
    private let identity: Mutex<HostIdentity?>

    /// The file holding our host's identity (address and IRK), next to the records.
    public static let identityFileName = "host-identity.json"

    /// Files larger than this are not records; they are moved aside unread. Nothing
    /// larger is written either (``save(_:)`` and ``update(address:type:_:)`` refuse
    /// it), so the store reads back everything it wrote.
    public static let maximumFileSize = 16 << 20

    /// `$ATTUNE_STORE`, else `/var/lib/attune` for root, else
    /// `$XDG_STATE_HOME/attune` or `~/.local/state/attune`.
    public static var defaultDirectory: String {
        let env = ProcessInfo.processInfo.environment
        if let explicit = env["ATTUNE_STORE"], !explicit.isEmpty { return explicit }
        if getuid() == 0 { return "/var/lib/attune" }
        if let xdg = env["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/attune" }
        return (env["HOME"] ?? "/tmp") + "/.local/state/attune"
    }

    /// Opens (creating it if needed) the store in `directory`. Throws only when the
    /// directory itself cannot be created or listed; bad files become ``problems``.
    public init(directory: String = FileStore.defaultDirectory) throws(StoreError) {
        self.directory = directory
        do {
            // Owner only: the records hold bond keys.
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(operation: "create directory", path: directory, detail: "\(error)")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw StoreError(operation: "list", path: directory, detail: "\(error)")
        }
        var records: [UUID: PeripheralRecord] = [:]
        var problems: [StoreProblem] = []
        let decoder = JSONDecoder()
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                // An interrupted write; the record it was replacing is intact.
                unlink(path)
                continue
            }
            guard name.hasSuffix(".json"), name != Self.identityFileName else { continue }
            let reason: String
            var field: String?
            do {
                let data = try Self.read(path)
                let record = try decoder.decode(PeripheralRecord.self, from: data)
                if name == record.identifier.uuidString + ".json" {
                    records[record.identifier] = record
                    continue
                }
                reason = "holds \(record.identifier.uuidString), not the record its name promises"
            } catch let error as DecodingError {
                (field, reason) = Self.describe(error)
            } catch {
                reason = "\(error)"
            }
            problems.append(StoreProblem(path: path, movedTo: Self.moveAside(path), reason: reason, field: field))
        }
        let identityPath = directory + "/" + Self.identityFileName
        var identity: HostIdentity?
        if access(identityPath, F_OK) == 0 {
            do {
                identity = try decoder.decode(StoredIdentity.self, from: try Self.read(identityPath)).identity
            } catch {
                // A new identity replaces it; peers that bonded with the old one pair again.
                problems.append(StoreProblem(path: identityPath, movedTo: Self.moveAside(identityPath),
                                             reason: "not a host identity: \(error)"))
            }
        }
        self.problems = problems
        state = Mutex(records)
        self.identity = Mutex(identity)
    }

    public var hostIdentity: HostIdentity? { identity.withLock { $0 } }

    public func saveHostIdentity(_ identity: HostIdentity) throws(StoreError) {
        let path = directory + "/" + Self.identityFileName
        let bytes: [UInt8]
        do {
            bytes = Array(try JSONEncoder().encode(StoredIdentity(identity)))
        } catch {
            throw StoreError(operation: "encode", path: path, detail: "\(error)")
        }
        try self.identity.withLock { (kept: inout HostIdentity?) throws(StoreError) in
            try writeAtomically(bytes, to: path, name: Self.identityFileName)
            kept = identity
        }
    }

    /// The identity file's form: the address as text, the IRK as octets.
    private struct StoredIdentity: Codable {
        var address: String
        var identityResolvingKey: [UInt8]
        init(_ identity: HostIdentity) {
            address = identity.address.description
            identityResolvingKey = identity.identityResolvingKey
        }
        var identity: HostIdentity {
            get throws {
                guard let parsed = BluetoothAddress(address), parsed.bytes.0 >> 6 == 0b11, identityResolvingKey.count == 16 else {
                    throw StoreError(operation: "decode", path: FileStore.identityFileName,
                                     detail: "the address must be static random and the IRK 16 octets")
                }
                return HostIdentity(address: parsed, identityResolvingKey: identityResolvingKey)
            }
        }
    }

    public func records() -> [PeripheralRecord] {
        state.withLock { Array($0.values) }.sorted { $0.address < $1.address }
    }

    public func record(for identifier: UUID) -> PeripheralRecord? { state.withLock { $0[identifier] } }

    public func save(_ record: PeripheralRecord) throws(StoreError) {
        let path = self.path(for: record.identifier)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(record))
        } catch {
            throw StoreError(operation: "encode", path: path, detail: "\(error)")
        }
        try Self.checkSize(bytes, path)
        // The lock orders writes of the same record, so the newest always lands last.
        try state.withLock { (records: inout [UUID: PeripheralRecord]) throws(StoreError) in
            try writeAtomically(bytes, to: path, name: record.identifier.uuidString + ".json")
            records[record.identifier] = record
        }
    }

    /// Read, change and write under the store's lock: one step.
    public func update(address: BluetoothAddress, type: BluetoothAddressType,
                       _ change: (inout PeripheralRecord) -> Void) throws(StoreError) {
        let id = PeripheralIdentifier.make(address: address, type: type)
        let path = self.path(for: id)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try state.withLock { (records: inout [UUID: PeripheralRecord]) throws(StoreError) in
            var record = records[id] ?? PeripheralRecord(address: address, addressType: type)
            change(&record)
            let bytes: [UInt8]
            do {
                bytes = Array(try encoder.encode(record))
            } catch {
                throw StoreError(operation: "encode", path: path, detail: "\(error)")
            }
            try Self.checkSize(bytes, path)
            try writeAtomically(bytes, to: path, name: id.uuidString + ".json")
            records[id] = record
        }
    }

    public func removeRecord(for identifier: UUID) throws(StoreError) {
        let path = self.path(for: identifier)
        try state.withLock { (records: inout [UUID: PeripheralRecord]) throws(StoreError) in
            if unlink(path) != 0 && errno != ENOENT {
                throw StoreError(operation: "remove", path: path, code: errno, detail: String(cString: strerror(errno)))
            }
            syncDirectory()
            records.removeValue(forKey: identifier)
        }
    }

    /// Refuses a record the store would move aside as corrupt when it next opens.
    private static func checkSize(_ bytes: [UInt8], _ path: String) throws(StoreError) {
        guard bytes.count > maximumFileSize else { return }
        throw StoreError(operation: "write", path: path,
                         detail: "the record would be \(bytes.count) bytes, over the store's limit of \(maximumFileSize) "
                            + "(a file that large is not read back as a record); nothing was written")
    }

    private func path(for identifier: UUID) -> String { directory + "/" + identifier.uuidString + ".json" }

    private func writeAtomically(_ bytes: [UInt8], to path: String, name: String) throws(StoreError) {
        let temporary = directory + "/." + name + ".tmp"
        func failure(_ operation: String, _ file: String) -> StoreError {
            let code = errno
            return StoreError(operation: operation, path: file, code: code, detail: String(cString: strerror(code)))
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create", temporary) }
        // Records hold bond keys: owner only, even over a leftover temporary file whose
        // mode O_CREAT would keep.
        guard fchmod(fd, 0o600) == 0 else {
            let error = failure("chmod", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let error = failure("write", temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let error = failure("fsync", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failure("rename", path)
            unlink(temporary)
            throw error
        }
        syncDirectory()
    }

    /// Makes the rename itself durable.
    private func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private static func read(_ path: String) throws -> Data {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes[.size] as? Int, size > maximumFileSize {
            throw StoreError(operation: "read", path: path, detail: "\(size) bytes is too large for a record")
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Renames a bad file out of the way; nil if even that failed.
    private static func moveAside(_ path: String) -> String? {
        let stamp = Int(Date().timeIntervalSince1970)
        for attempt in 0..<100 {
            let target = path + ".corrupt-\(stamp)" + (attempt == 0 ? "" : "-\(attempt)")
            if access(target, F_OK) == 0 { continue }
            return rename(path, target) == 0 ? target : nil
        }
        return nil
    }

    /// The field a decoding error names (dotted, as in the file) and why it failed.
    private static func describe(_ error: DecodingError) -> (field: String?, reason: String) {
        func dotted(_ path: [any CodingKey]) -> String? {
            path.isEmpty ? nil : path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let c):
            // A field's own check (a key size, an address) names the field; a parse error does not.
            guard let field = dotted(c.codingPath) else { return (nil, "not valid JSON or not a record: \(c.debugDescription)") }
            return (field, "bad field \(field): \(c.debugDescription)")
        case .keyNotFound(let key, let c):
            let field = dotted(c.codingPath + [key]) ?? key.stringValue
            return (field, "missing field \(field)")
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            let field = dotted(c.codingPath)
            return (field, "bad field \(field ?? "(the record)"): \(c.debugDescription)")
        @unknown default: return (nil, "\(error)")
        }
    }
}
