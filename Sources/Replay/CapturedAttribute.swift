import ATT
import Capture

/// What a capture revealed about one attribute of the server.
public struct CapturedAttribute: Hashable, Sendable {
    public var handle: AttributeHandle
    /// The attribute type, if discovery showed it.
    public var type: BluetoothUUID?
    /// As much of the value as reads showed (before any write in the capture).
    public var value: [UInt8]?
    /// False when the value may be cut short: a Read Response filling the MTU with no Read
    /// Blob after it, or a Read By Type entry at its length limit.
    public var valueIsComplete = false
    /// True after a successful read, false after Read Not Permitted; nil when unknown.
    public var readable: Bool?
    /// True after a successful write, false after Write Not Permitted; nil when unknown.
    public var writable: Bool?

    public init(handle: AttributeHandle) {
        self.handle = handle
    }
}

/// A service range a capture revealed.
public struct CapturedService: Hashable, Sendable {
    public var start: AttributeHandle
    public var end: AttributeHandle
    public var uuid: BluetoothUUID?
    public var isPrimary: Bool
}
