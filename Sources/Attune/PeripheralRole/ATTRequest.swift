/// A read or write of a dynamic characteristic, waiting for the application's answer,
/// like `CBATTRequest`. Answer with ``PeripheralManager/respond(to:withResult:)``.
public struct ATTRequest: Hashable, Sendable, Identifiable {
    /// Read or write.
    public enum Kind: Hashable, Sendable {
        case read
        /// `expectsResponse` is false for Write Command: no answer is needed.
        case write(expectsResponse: Bool)
    }

    /// The server's handle on the request.
    public var id: ApplicationRequestID
    /// Read or write, and whether a write expects a response.
    public var kind: Kind
    /// Who asked.
    public var central: Central
    /// The attribute read or (first) written.
    public var handle: AttributeHandle
    /// The characteristic the attribute belongs to, when it is one.
    public var characteristicUUID: BluetoothUUID?
    /// Offset of a read blob or prepared write.
    public var offset: Int
    /// The value written (first part of an execute write); empty for reads.
    public var value: [UInt8]
    /// Every part of a write, for prepared writes executed together.
    public var writes: [ApplicationWrite]

    /// Whether ``PeripheralManager/respond(to:withResult:)`` must be called.
    public var needsResponse: Bool {
        if case .write(let expects) = kind { return expects }
        return true
    }
}
