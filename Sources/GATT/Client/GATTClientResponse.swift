import ATT

/// What a successful client command produced.
public enum GATTClientResponse: Hashable, Sendable {
    /// Exchange MTU: the ATT_MTU now in force.
    case mtu(Int)
    case services([DiscoveredService])
    case includes([DiscoveredInclude])
    case characteristics([DiscoveredCharacteristic])
    case descriptors([DiscoveredDescriptor])
    /// A value read (for Read Multiple, the values concatenated as the server sent them).
    case value([UInt8])
    /// Read Using Characteristic UUID: every handle and value found.
    case handleValues([HandleValue])
    /// Read Multiple Variable: each value in request order.
    case values([[UInt8]])
    /// A write, write command or subscription change completed.
    case done
    /// Discovery of the whole database completed.
    case database(DiscoveredDatabase)

    /// The single value, for reads.
    public var value: [UInt8]? {
        switch self {
        case let .value(v): v
        case let .handleValues(list) where list.count == 1: list[0].value
        default: nil
        }
    }
}

/// A handle and the value read from it.
public struct HandleValue: Hashable, Sendable {
    public var handle: AttributeHandle
    public var value: [UInt8]
    public init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
