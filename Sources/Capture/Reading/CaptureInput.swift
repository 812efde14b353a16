/// A source of capture bytes, read front to back.
public protocol CaptureInput {
    /// Fills the start of `buffer` and returns how many bytes were read; 0 means the end.
    /// Throws ``CaptureError/Reason/readFailed(errno:)`` (position filled in by the reader).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int
}
