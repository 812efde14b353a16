/// One AD structure: `length, type, data` (Vol 3 Part C §11).
public struct AdvertisingDataStructure: Hashable, Sendable {
    public var type: AdvertisingDataType
    /// The structure's data, without its length and type bytes.
    public var data: ArraySlice<UInt8>
    /// Offset of the structure's length byte from the start of the advertising data.
    public var offset: Int

    public init(type: AdvertisingDataType, data: ArraySlice<UInt8>, offset: Int) {
        self.type = type
        self.data = data
        self.offset = offset
    }
}
