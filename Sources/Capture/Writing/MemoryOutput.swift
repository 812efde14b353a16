/// Collects capture bytes in memory.
public struct MemoryOutput: CaptureOutput, Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func write(_ chunk: UnsafeRawBufferPointer) throws(CaptureError) {
        bytes.append(contentsOf: chunk)
    }

    public mutating func flush() throws(CaptureError) {}
}
