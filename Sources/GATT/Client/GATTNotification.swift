import ATT

/// A value the server pushed: a notification, or an indication (already confirmed).
public struct GATTNotification: Hashable, Sendable {
    public var handle: AttributeHandle
    /// Shares storage with the received PDU.
    public var value: ArraySlice<UInt8>
    public var isIndication: Bool

    public init(handle: AttributeHandle, value: ArraySlice<UInt8>, isIndication: Bool = false) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
    }

    /// The notification or indication an event carries, if any.
    public init?(_ event: GATTClientEvent) {
        switch event {
        case let .notification(h, v): self.init(handle: h, value: v)
        case let .indication(h, v): self.init(handle: h, value: v, isIndication: true)
        default: return nil
        }
    }
}
