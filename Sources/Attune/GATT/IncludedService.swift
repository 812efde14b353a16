/// One include declaration of a service (Vol 3 Part G §3.2): the service it includes,
/// like an entry of `CBService.includedServices`, and where the declaration itself is.
///
/// The included service's characteristics live in its own ``Service``, which
/// ``Peripheral/discoverIncludedServices(_:for:)`` returns and adds to
/// ``Peripheral/services``; find it by ``startHandle``.
public struct IncludedService: Hashable, Sendable, Codable, Identifiable {
    /// Handle of the include declaration, inside the including service's group.
    public var declarationHandle: AttributeHandle
    /// The included service's type. A 128-bit UUID is not in the declaration: the client
    /// reads it from the included service's own declaration (Vol 3 Part G §4.5.1).
    public var uuid: BluetoothUUID
    /// Handle of the included service's declaration.
    public var startHandle: AttributeHandle
    /// Last handle of the included service's group.
    public var endHandle: AttributeHandle

    public var id: AttributeHandle { declarationHandle }

    /// An include value; discovery makes these, tests and caches may too.
    public init(declarationHandle: AttributeHandle, uuid: BluetoothUUID, startHandle: AttributeHandle,
                endHandle: AttributeHandle) {
        self.declarationHandle = declarationHandle
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }

    private enum CodingKeys: String, CodingKey { case declarationHandle, uuid, startHandle, endHandle }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        declarationHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .declarationHandle))
        uuid = try c.decodeBluetoothUUID(forKey: .uuid)
        startHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .startHandle))
        endHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .endHandle))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(declarationHandle.rawValue, forKey: .declarationHandle)
        try c.encode(uuid.description, forKey: .uuid)
        try c.encode(startHandle.rawValue, forKey: .startHandle)
        try c.encode(endHandle.rawValue, forKey: .endHandle)
    }
}
