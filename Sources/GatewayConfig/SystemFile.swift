import Glibc

/// Why a file could not be read: the system's words for the errno ("Permission denied").
public struct FileReadError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    /// The `strerror` text for `errno`.
    public init(errno code: Int32) {
        reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    public var description: String { reason }
}

/// Reading the config and password files from the file system, bounded in size.
public enum SystemFile {
    /// The file's bytes, at most `limit` of them (a longer file gives its first `limit` bytes,
    /// so a caller can tell it is too long by asking for one byte more than it accepts).
    public static func read(_ path: String, limit: Int) throws(FileReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError(errno: errno) }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while result.count < limit {
            let wanted = min(chunk.count, limit - result.count)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, wanted) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileReadError(errno: errno)
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }
}
