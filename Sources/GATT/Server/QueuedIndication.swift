import ATT

/// An indication waiting to be sent or confirmed.
struct QueuedIndication: Sendable {
    var id: IndicationID
    var handle: AttributeHandle
    var value: [UInt8]
    /// Set for Service Changed: confirming it makes the client change-aware.
    var isServiceChanged: Bool
}
