/// A characteristic descriptor, like `CBDescriptor`.
public struct Descriptor: Hashable, Sendable, Codable, Identifiable {
    /// The descriptor type (0x2902 for the CCCD).
    public var uuid: BluetoothUUID
    /// The descriptor's own handle.
    public var handle: AttributeHandle
    /// The value handle of the characteristic the descriptor belongs to.
    public var characteristicHandle: AttributeHandle

    public var id: AttributeHandle { handle }

    /// A descriptor value.
    public init(uuid: BluetoothUUID, handle: AttributeHandle, characteristicHandle: AttributeHandle) {
        self.uuid = uuid
        self.handle = handle
        self.characteristicHandle = characteristicHandle
    }

    private enum CodingKeys: String, CodingKey { case uuid, handle, characteristicHandle }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decodeBluetoothUUID(forKey: .uuid)
        handle = AttributeHandle(try c.decode(UInt16.self, forKey: .handle))
        characteristicHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .characteristicHandle))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid.description, forKey: .uuid)
        try c.encode(handle.rawValue, forKey: .handle)
        try c.encode(characteristicHandle.rawValue, forKey: .characteristicHandle)
    }
}
