#if canImport(Glibc)
import Glibc
#endif

/// A capture file written through a 64 KiB buffer. Created (or truncated) on init;
/// ``flush()`` pushes buffered records to the file, and deinit flushes what is left.
public final class FileOutput: CaptureOutput {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private let capacity = 64 << 10
    private var written: Int64 = 0
    public let path: String

    public init(path: String) throws(CaptureError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CaptureError(.cannotOpen(path: path, errno: errno), recordIndex: nil, byteOffset: 0) }
        descriptor = fd
        pending.reserveCapacity(capacity)
    }

    deinit {
        try? flush()
        close(descriptor)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(CaptureError) {
        if pending.count + bytes.count > capacity { try flush() }
        if bytes.count >= capacity {
            try writeAll(bytes)
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    public func flush() throws(CaptureError) {
        guard !pending.isEmpty else { return }
        let result = pending.withUnsafeBytes { raw -> Result<Void, CaptureError> in
            do throws(CaptureError) { try writeAll(raw); return .success(()) } catch { return .failure(error) }
        }
        pending.removeAll(keepingCapacity: true)
        try result.get()
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(CaptureError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw CaptureError(.writeFailed(errno: errno), recordIndex: nil, byteOffset: written)
            }
            offset += n
            written += Int64(n)
        }
    }
}
