import ATT

/// A request waiting for the application (dynamic attribute values). The protocol is
/// sequential, so a connection has at most one.
struct PendingApplicationRequest: Sendable {
    enum Kind: Sendable {
        /// Re-run the request once the value arrives (reads of any kind).
        case read(AttributeHandle)
        /// Answer with a Write Response, then apply `stored` updates (Write Request).
        case write
        /// Answer with an Execute Write Response after applying `stored` updates.
        case execute(stored: [(index: Int, value: [UInt8])])
    }

    var id: ApplicationRequestID
    var deadline: MonotonicTime
    var kind: Kind
    /// The request PDU, copied so it can be processed again.
    var request: [UInt8]
    /// The handle an Unlikely Error names on timeout.
    var handle: AttributeHandle
    /// Dynamic values already supplied for this request.
    var resolved: [AttributeHandle: [UInt8]]
}
