/// ATT_FIND_BY_TYPE_VALUE_REQ (Vol 3 Part F §3.4.3.3): the type is always a 16-bit UUID.
public struct FindByTypeValueRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.findByTypeValueRequest
    public var range: AttributeHandleRange
    public var attributeType: UInt16
    public var value: ArraySlice<UInt8>

    public init(range: AttributeHandleRange, attributeType: UInt16, value: ArraySlice<UInt8>) {
        self.range = range
        self.attributeType = attributeType
        self.value = value
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        range = try readRange(&reader)
        attributeType = try reader.readUInt16("attribute type")
        value = reader.readRest()
    }

    public var parameterLength: Int { 6 + value.count }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        appendRange(range, to: &buffer)
        appendUInt16(attributeType, to: &buffer)
        buffer.append(contentsOf: value)
    }

    public var description: String {
        let v = value.count == 2 || value.count == 16
            ? (BluetoothUUID(littleEndian: value).map(describeUUID) ?? hexString(value)) : hexString(value)
        return "\(range) type \(describeUUID(BluetoothUUID(attributeType))) value \(v)"
    }
}
