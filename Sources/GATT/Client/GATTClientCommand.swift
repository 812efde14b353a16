import ATT

/// What an application can ask a ``GATTClient`` to do: one case per GATT procedure of
/// Vol 3 Part G §4, plus full database discovery and subscriptions.
public enum GATTClientCommand: Hashable, Sendable {
    /// Exchange MTU (§4.3.1), offering the configured Rx MTU.
    case exchangeMTU
    /// Discover All Primary Services (§4.4.1).
    case discoverAllPrimaryServices(in: AttributeHandleRange = .all)
    /// Discover Primary Service by Service UUID (§4.4.2).
    case discoverPrimaryServices(BluetoothUUID, in: AttributeHandleRange = .all)
    /// Discover secondary services: Read By Group Type on «Secondary Service».
    case discoverSecondaryServices(in: AttributeHandleRange = .all)
    /// Find Included Services (§4.5.1).
    case findIncludedServices(in: AttributeHandleRange)
    /// Discover All Characteristics of a Service (§4.6.1).
    case discoverAllCharacteristics(in: AttributeHandleRange)
    /// Discover Characteristics by UUID (§4.6.2).
    case discoverCharacteristics(BluetoothUUID, in: AttributeHandleRange)
    /// Discover All Characteristic Descriptors (§4.7.1).
    case discoverDescriptors(in: AttributeHandleRange)
    /// Read Characteristic Value or Read Characteristic Descriptor (§4.8.1, §4.12.1).
    case readValue(AttributeHandle)
    /// Read Using Characteristic UUID (§4.8.2).
    case readUsingCharacteristicUUID(BluetoothUUID, in: AttributeHandleRange = .all)
    /// Read Long Characteristic Value or Descriptor (§4.8.3, §4.12.2).
    case readLongValue(AttributeHandle, offset: UInt16 = 0)
    /// Read Multiple Characteristic Values (§4.8.4).
    case readMultiple([AttributeHandle])
    /// Read Multiple Variable Length Characteristic Values (§4.8.5).
    case readMultipleVariable([AttributeHandle])
    /// Write Without Response (§4.9.1).
    case writeWithoutResponse(AttributeHandle, [UInt8])
    /// Signed Write Without Response (§4.9.2); on an encrypted link a plain Write Command
    /// is sent instead, as the spec requires.
    case signedWriteWithoutResponse(AttributeHandle, [UInt8])
    /// Write Characteristic Value or Descriptor (§4.9.3, §4.12.3).
    case writeValue(AttributeHandle, [UInt8])
    /// Write Long Characteristic Values or Descriptors (§4.9.4, §4.12.4).
    case writeLongValue(AttributeHandle, offset: UInt16 = 0, [UInt8])
    /// Reliable Writes (§4.9.5): every part is verified against the server's echo.
    case reliableWrite([PreparedWrite])
    /// Discover the whole database (MTU aside): server features, primary and secondary
    /// services, includes, characteristics, descriptors; then configure robust caching.
    case discoverDatabase
    /// The same, unless the database the client already holds (a cache it was created
    /// with) still has the server's Database Hash: then one Read Using Characteristic UUID
    /// confirms it and the cached database is the answer (robust caching, Vol 3 Part G
    /// §2.5.2.1).
    case refreshDatabase
    /// Subscribe to a characteristic's notifications or indications, counting
    /// subscribers per characteristic; only the first writes the CCCD.
    case subscribe(valueHandle: AttributeHandle, SubscriptionKind? = nil)
    /// The same, for a characteristic described by the caller (one it discovered with
    /// its own procedures, outside the engine's database).
    case subscribeDescribed(Subscription)
    /// Drop one subscriber; the last one writes 0x0000 to the CCCD.
    case unsubscribe(valueHandle: AttributeHandle)
}

/// One write of a Reliable Writes procedure.
public struct PreparedWrite: Hashable, Sendable {
    public var handle: AttributeHandle
    public var offset: UInt16
    public var value: [UInt8]
    public init(handle: AttributeHandle, offset: UInt16 = 0, value: [UInt8]) {
        self.handle = handle
        self.offset = offset
        self.value = value
    }
}

/// Notifications or indications, as configured in the CCCD (Vol 3 Part G §3.3.3.3).
/// Kept in stores as "notification" or "indication".
public enum SubscriptionKind: String, Hashable, Sendable, Codable {
    case notify = "notification"
    case indicate = "indication"

    /// The CCCD value that enables this kind.
    public var configurationValue: UInt16 { self == .notify ? 0x0001 : 0x0002 }
}
