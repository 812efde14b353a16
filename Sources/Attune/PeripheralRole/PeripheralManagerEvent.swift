/// What happens on a ``PeripheralManager``, besides the requests it hands out.
public enum PeripheralManagerEvent: Hashable, Sendable {
    case centralConnected(Central)
    case centralDisconnected(Central, DisconnectReason)
    /// A central wrote a CCCD: `configuration` is empty when it unsubscribed.
    case subscriptionChanged(Central, characteristic: AttributeHandle, ClientCharacteristicConfiguration)
    /// A central wrote a stored (static) value; the server already keeps it.
    case valueWritten(Central, handle: AttributeHandle, value: [UInt8])
    /// An indication was confirmed, or failed.
    case indicationCompleted(Central, confirmed: Bool)
    /// A request was not answered in time; the central got Unlikely Error.
    case requestExpired(ApplicationRequestID)
    /// ``PeripheralManager/requests`` was full: this request was answered at once with
    /// Insufficient Resources (0x11) and never reached the application.
    case requestRefused(ATTRequest)
}
