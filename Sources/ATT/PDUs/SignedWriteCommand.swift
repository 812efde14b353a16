/// ATT_SIGNED_WRITE_CMD (Vol 3 Part F §3.4.5.4): a write command followed by a 12-byte
/// authentication signature (Vol 3 Part H §2.4.5: sign counter then 8 bytes of MAC).
public struct SignedWriteCommand: ATTPDUBody {
    public static let opcode = ATTOpcode.signedWriteCommand
    public static let signatureLength = 12

    public var handle: AttributeHandle
    public var value: ArraySlice<UInt8>
    /// 12 bytes: SignCounter (LE32) then MAC (8 bytes).
    public var signature: ArraySlice<UInt8>

    public init(handle: AttributeHandle, value: ArraySlice<UInt8>, signature: ArraySlice<UInt8>) {
        self.handle = handle
        self.value = value
        self.signature = signature
    }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        handle = try reader.readHandle("attribute handle")
        let valueLength = reader.remaining - Self.signatureLength
        guard valueLength >= 0 else {
            throw ATTDecodingError(.truncated(field: "authentication signature", needed: Self.signatureLength, available: reader.remaining),
                                   offset: reader.offset, opcode: reader.opcode)
        }
        value = try reader.readSlice(valueLength, field: "attribute value")
        signature = try reader.readSlice(Self.signatureLength, field: "authentication signature")
    }

    /// The sign counter carried in the signature.
    public var signCounter: UInt32 {
        var v: UInt32 = 0
        for (i, b) in signature.prefix(4).enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
        return v
    }

    public var parameterLength: Int { 2 + value.count + signature.count }

    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) {
        appendUInt16(handle.rawValue, to: &buffer)
        buffer.append(contentsOf: value)
        buffer.append(contentsOf: signature)
    }

    public var description: String {
        "handle \(handle) value \(hexString(value)) sign counter \(signCounter) signature \(hexString(signature))"
    }
}
