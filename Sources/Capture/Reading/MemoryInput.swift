/// Capture bytes already in memory: tests, fuzzing, and data received from elsewhere.
public struct MemoryInput: CaptureInput, Sendable {
    public let bytes: [UInt8]
    public private(set) var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }
}
