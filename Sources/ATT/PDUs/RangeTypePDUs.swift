/// Requests made of a handle range and an attribute type (16- or 128-bit UUID).
public protocol RangeTypePDU: ATTPDUBody {
    var range: AttributeHandleRange { get }
    var attributeType: BluetoothUUID { get }
    init(range: AttributeHandleRange, attributeType: BluetoothUUID)
}

extension RangeTypePDU {
    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let range = try readRange(&reader)
        let width = reader.remaining
        guard width == 2 || width == 16 else {
            throw ATTDecodingError(.invalidLength(field: "attribute type", length: max(0, width), expected: "2 or 16"),
                                   offset: reader.offset, opcode: reader.opcode)
        }
        self.init(range: range, attributeType: try reader.readUUID(width: width, "attribute type"))
    }

    public var parameterLength: Int { 4 + (attributeType.attForm.width == .bits16 ? 2 : 16) }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        appendRange(range, to: &buffer)
        attributeType.attForm.append(to: &buffer)
    }

    public var description: String { "\(range) type \(describeUUID(attributeType))" }
}

/// ATT_READ_BY_TYPE_REQ (Vol 3 Part F §3.4.4.1).
public struct ReadByTypeRequest: RangeTypePDU {
    public static let opcode = ATTOpcode.readByTypeRequest
    public var range: AttributeHandleRange
    public var attributeType: BluetoothUUID
    public init(range: AttributeHandleRange, attributeType: BluetoothUUID) {
        self.range = range
        self.attributeType = attributeType
    }
}

/// ATT_READ_BY_GROUP_TYPE_REQ (Vol 3 Part F §3.4.4.9).
public struct ReadByGroupTypeRequest: RangeTypePDU {
    public static let opcode = ATTOpcode.readByGroupTypeRequest
    public var range: AttributeHandleRange
    public var attributeType: BluetoothUUID
    public init(range: AttributeHandleRange, attributeType: BluetoothUUID) {
        self.range = range
        self.attributeType = attributeType
    }
}
