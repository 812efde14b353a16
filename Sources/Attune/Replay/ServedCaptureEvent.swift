/// What a ``ServedCapture`` did on its own, besides what its ``PeripheralManager``
/// reports in ``PeripheralManager/events``.
public enum ServedCaptureEvent: Hashable, Sendable {
    /// A captured notification or indication (record `record` of the capture; which of
    /// the two, `isIndication`) went to `central`, as a notification or an indication as
    /// the central subscribed.
    case pushed(Central, handle: AttributeHandle, value: [UInt8], isIndication: Bool, record: Int)
    /// A write of a characteristic whose writes the captured server refused: answered
    /// with `error` as the captured server answered it, or accepted (nil) when the
    /// capture refused other values only.
    case writeAnswered(Central, handle: AttributeHandle, value: [UInt8], error: ATTErrorCode?)
}
