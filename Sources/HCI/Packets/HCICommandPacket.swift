/// An HCI command packet as it appears in a capture: opcode, then a one-byte parameter
/// length, then the parameters (Vol 4 Part E §5.4.1).
public struct HCICommandPacket: Hashable, Sendable {
    public var opcode: HCIOpcode
    /// The parameters, sharing storage with the decoded bytes.
    public var parameters: ArraySlice<UInt8>

    public init(opcode: HCIOpcode, parameters: ArraySlice<UInt8>) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Decodes a command packet without its H4 indicator. The parameter length must match
    /// the bytes present.
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "HCI Command")
        opcode = HCIOpcode(rawValue: try r.uint16("opcode"))
        let lengthOffset = r.offset
        let length = Int(try r.uint8("parameter total length"))
        guard r.remaining == length else {
            throw r.error(.lengthMismatch(field: "parameter total length", declared: length, actual: r.remaining),
                          at: lengthOffset)
        }
        parameters = r.rest()
    }

    /// The packet without H4 indicator.
    public var encoded: [UInt8] {
        var out: [UInt8] = [UInt8(truncatingIfNeeded: opcode.rawValue), UInt8(truncatingIfNeeded: opcode.rawValue >> 8),
                            UInt8(truncatingIfNeeded: parameters.count)]
        out.append(contentsOf: parameters)
        return out
    }
}
