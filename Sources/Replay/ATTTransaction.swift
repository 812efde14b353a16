import ATT
import Capture

/// A request and the response that completed it, or an indication and its confirmation,
/// as ATT's sequential protocol pairs them (Vol 3 Part F §3.3.2): one outstanding request
/// per direction, answered in order.
public struct ATTTransaction: Sendable {
    /// Index of the request (or indication) in its conversation.
    public var request: Int
    /// Index of the response (or confirmation), nil when the capture ends first.
    public var response: Int?
}
