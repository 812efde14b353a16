/// One decoded BTHome object.
public struct BTHomeObject: Hashable, Sendable {
    /// The object id's table row.
    public let type: BTHomeObjectType
    /// The offset of the object id in the service data.
    public let offset: Int
    /// The decoded value; its `hex` is the object's data bytes.
    public let value: DecodedValue
}
