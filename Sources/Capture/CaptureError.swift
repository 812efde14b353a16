/// Why a capture could not be read or written, and where: the record index (counting
/// records from 0, nil for the file header) and the byte offset in the file.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        case cannotOpen(path: String, errno: Int32)
        case readFailed(errno: Int32)
        case writeFailed(errno: Int32)
        /// The first bytes match no format we read.
        case unknownFormat
        case unsupportedVersion(major: Int, minor: Int)
        case unsupportedLinkType(UInt32)
        /// The file ends inside its header.
        case truncatedHeader(needed: Int, available: Int)
        /// The file ends inside a record.
        case truncatedRecord(needed: Int, available: Int)
        /// A record declares more bytes than the reader accepts.
        case recordTooLong(length: Int, limit: Int)
        /// A record's fields are inconsistent.
        case invalidRecord(String)
        /// A record cannot be written in the chosen format.
        case unrepresentable(String)
    }

    public var reason: Reason
    /// Index of the record at fault; nil when the file header is.
    public var recordIndex: Int?
    /// Offset in the file of the header or record at fault.
    public var byteOffset: Int64

    public init(_ reason: Reason, recordIndex: Int?, byteOffset: Int64) {
        self.reason = reason
        self.recordIndex = recordIndex
        self.byteOffset = byteOffset
    }

    public var description: String {
        let what: String
        switch reason {
        case let .cannotOpen(path, errno): what = "cannot open \(path): \(errnoText(errno))"
        case let .readFailed(errno): what = "read failed: \(errnoText(errno))"
        case let .writeFailed(errno): what = "write failed: \(errnoText(errno))"
        case .unknownFormat: what = "not a btsnoop, pcap or pcapng file"
        case let .unsupportedVersion(major, minor): what = "unsupported format version \(major).\(minor)"
        case let .unsupportedLinkType(type): what = "unsupported link type / datalink \(type)"
        case let .truncatedHeader(needed, available):
            what = "truncated file header: needs \(needed) bytes, \(available) present"
        case let .truncatedRecord(needed, available):
            what = "truncated record: needs \(needed) bytes, \(available) present"
        case let .recordTooLong(length, limit): what = "record of \(length) bytes exceeds the \(limit)-byte limit"
        case let .invalidRecord(text): what = "invalid record: \(text)"
        case let .unrepresentable(text): what = "cannot write record: \(text)"
        }
        let place = recordIndex.map { "record \($0) at byte offset \(byteOffset)" } ?? "file header at byte offset \(byteOffset)"
        return "\(place): \(what)"
    }
}

#if canImport(Glibc)
import Glibc
#endif

func errnoText(_ code: Int32) -> String {
    #if canImport(Glibc)
    if let text = strerror(code) { return String(cString: text) + " (errno \(code))" }
    #endif
    return "errno \(code)"
}
