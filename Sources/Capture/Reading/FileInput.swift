#if canImport(Glibc)
import Glibc
#endif

/// A capture file read with plain `read(2)` calls into the reader's bounded buffer, so
/// memory stays flat whatever the file size.
public final class FileInput: CaptureInput {
    private let descriptor: Int32
    public let path: String

    public init(path: String) throws(CaptureError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError(.cannotOpen(path: path, errno: errno), recordIndex: nil, byteOffset: 0) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        while true {
            let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw CaptureError(.readFailed(errno: errno), recordIndex: nil, byteOffset: 0)
        }
    }
}
