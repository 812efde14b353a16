import ATT
import Capture

/// One side of an ATT bearer that replay drives: PDUs from the captured peer go in, the
/// PDUs our engine sends come out. The GATT server and client engines are adapted to it.
public protocol ATTReplayTarget {
    /// A new connection starts: the capture showed LE Connection Complete, or the next
    /// conversation of the capture begins. Engine state that outlives connections (a
    /// server's attribute values) carries over, as it did on the air.
    mutating func begin(_ conversation: ATTConversation)

    /// Feeds one complete ATT PDU the peer sent at `timestamp` (microseconds since the
    /// Unix epoch, as captured) and returns every PDU the engine sends in reply, in order.
    mutating func receive(_ pdu: ArraySlice<UInt8>, at timestamp: Int64) -> [[UInt8]]

    /// As server: has the engine's application send what the captured server's
    /// application sent on its own at this point, a Handle Value Notification or
    /// Indication of `value` for `handle` to the subscribed client, and returns the PDUs
    /// the engine sends; nil when the target cannot push (the capture's push is then not
    /// replayed).
    mutating func push(_ value: [UInt8], handle: AttributeHandle, indication: Bool, at timestamp: Int64) -> [[UInt8]]?
}

extension ATTReplayTarget {
    public mutating func begin(_ conversation: ATTConversation) {}

    public mutating func push(_ value: [UInt8], handle: AttributeHandle, indication: Bool, at timestamp: Int64) -> [[UInt8]]? {
        nil
    }
}
