/// One ATT PDU type: its opcode, how its parameters decode, and how they encode.
///
/// Decoders read from a ``ByteReader`` positioned after the opcode and keep payloads as
/// slices of the input. Encoders append parameters to a caller-owned buffer.
public protocol ATTPDUBody: Hashable, Sendable, CustomStringConvertible {
    static var opcode: ATTOpcode { get }
    /// Decodes the parameters that follow the opcode; the whole input must be consumed.
    init(parameters reader: inout ByteReader) throws(ATTDecodingError)
    /// Length of the parameters in bytes (the PDU is one byte longer).
    var parameterLength: Int { get }
    /// Appends the parameters, little-endian, to `buffer`.
    func appendParameters(to buffer: inout [UInt8])
}

extension ATTPDUBody {
    /// Decodes a complete PDU of this type, opcode included.
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>) throws(ATTDecodingError) {
        guard let first = bytes.first else { throw ATTDecodingError(.empty, offset: 0) }
        guard first == Self.opcode.rawValue else {
            throw ATTDecodingError(.invalidValue(field: "opcode", value: Int(first)), offset: 0, opcode: first)
        }
        var reader = ByteReader(bytes, opcode: first)
        _ = try reader.readUInt8("opcode")
        try self.init(parameters: &reader)
        try reader.expectEnd()
    }

    /// Appends the whole PDU (opcode first); fails rather than exceed `mtu`.
    @inlinable
    public func encode(into buffer: inout [UInt8], mtu: Int = Int.max) throws(ATTEncodingError) {
        let length = 1 + parameterLength
        guard length <= mtu else { throw .exceedsMTU(length: length, mtu: mtu) }
        buffer.append(Self.opcode.rawValue)
        appendParameters(to: &buffer)
    }

    /// The whole PDU as a new array; fails rather than exceed `mtu`.
    @inlinable
    public func encoded(mtu: Int = Int.max) throws(ATTEncodingError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1 + parameterLength)
        try encode(into: &out, mtu: mtu)
        return out
    }
}

@inlinable
func appendUInt16(_ value: UInt16, to buffer: inout [UInt8]) {
    buffer.append(UInt8(truncatingIfNeeded: value))
    buffer.append(UInt8(truncatingIfNeeded: value >> 8))
}

/// Reads a handle range and reports handles as they are on the wire; servers validate.
@inlinable
func readRange(_ reader: inout ByteReader) throws(ATTDecodingError) -> AttributeHandleRange {
    let start = try reader.readHandle("starting handle")
    let end = try reader.readHandle("ending handle")
    return AttributeHandleRange(start: start, end: end)
}

@inlinable
func appendRange(_ range: AttributeHandleRange, to buffer: inout [UInt8]) {
    appendUInt16(range.start.rawValue, to: &buffer)
    appendUInt16(range.end.rawValue, to: &buffer)
}

/// "0x2803 (Characteristic)" for assigned numbers, the UUID text otherwise.
func describeUUID(_ uuid: BluetoothUUID) -> String {
    if uuid.width == .bits16, let v = uuid.uint16 {
        let name = AssignedNumbers.name(for: v).map { " (\($0))" } ?? ""
        return AttributeHandle(v).description + name
    }
    return uuid.fullString.lowercased()
}
