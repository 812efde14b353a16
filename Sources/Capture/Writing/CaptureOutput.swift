/// A destination for capture bytes.
public protocol CaptureOutput {
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(CaptureError)
    /// Pushes buffered bytes to their destination.
    mutating func flush() throws(CaptureError)
}
