import ATT

/// Identifies a request the server has handed to the application.
public struct ApplicationRequestID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "app request \(rawValue)" }
}

/// Identifies one indication the application asked for, on one connection.
public struct IndicationID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "indication \(rawValue)" }
}

/// A read of a dynamic attribute the application must answer with
/// ``GATTServer/completeRead(_:with:at:into:)`` before ``deadline``; a late answer is
/// refused and the client gets Unlikely Error (0x0E).
///
/// The application returns the whole value; the server applies offsets and the MTU.
public struct ApplicationReadRequest: Hashable, Sendable {
    public var id: ApplicationRequestID
    public var connection: ConnectionID
    public var handle: AttributeHandle
    public var deadline: MonotonicTime
    /// The offset a Read Blob Request asked for; 0 for the other reads. For the
    /// application to know (and log) what is read: it still returns the whole value.
    public var offset: Int
}

/// One write the application must apply to a dynamic attribute.
public struct ApplicationWrite: Hashable, Sendable {
    public var handle: AttributeHandle
    public var offset: Int
    public var value: [UInt8]
}

/// Writes of dynamic attributes for the application. For a Write Request or an Execute
/// Write it must answer with ``GATTServer/completeWrite(_:error:at:into:)`` before
/// ``deadline``, and all ``writes`` stand or fall together. For Write Command and Signed
/// Write Command (`expectsResponse == false`) no answer is expected.
public struct ApplicationWriteRequest: Hashable, Sendable {
    public var id: ApplicationRequestID
    public var connection: ConnectionID
    public var writes: [ApplicationWrite]
    public var expectsResponse: Bool
    public var deadline: MonotonicTime
}

/// How an indication ended.
public enum IndicationOutcome: Hashable, Sendable {
    case confirmed
    /// The bearer closed (transaction timeout, protocol violation, disconnection).
    case failed(ATTBearerCloseReason)
}

/// Something the application should know or do.
public enum GATTServerEvent: Hashable, Sendable {
    case readRequested(ApplicationReadRequest)
    case writeRequested(ApplicationWriteRequest)
    /// A client changed a stored value.
    case valueWritten(ConnectionID, AttributeHandle)
    /// A client changed its Client Characteristic Configuration for a characteristic.
    case subscriptionChanged(ConnectionID, characteristic: AttributeHandle, ClientCharacteristicConfiguration)
    case indicationCompleted(IndicationID, ConnectionID, IndicationOutcome)
    /// A request handed to the application was not answered in time.
    case applicationRequestExpired(ApplicationRequestID)
    /// A Signed Write Command was dropped (bad signature, replayed counter, no key).
    case signedWriteDropped(ConnectionID, AttributeHandle)
    /// The connection's bearer closed; the connection is gone from the server.
    case connectionClosed(ConnectionID, ATTBearerCloseReason)
    /// What the link's client engine produced (``GATTServer/perform(_:on:at:into:)``,
    /// or a notification the connected client sent as a server): completions, events,
    /// a security raise or a close. Its PDUs are already in the output.
    case client(ConnectionID, GATTClientAction)
}
