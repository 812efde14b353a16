/// An HCI command the host sends to the controller (Vol 4 Part E §5.4.1, §7).
///
/// Each command knows its opcode and writes its own parameters; framing (opcode,
/// parameter length, H4 indicator) is shared here so no command can get it wrong.
public protocol HCICommand: Sendable {
    /// The command's opcode.
    static var opcode: HCIOpcode { get }
    /// Appends the command parameters, little-endian, in spec order.
    func encodeParameters(into buffer: inout [UInt8])
}

extension HCICommand {
    /// The complete H4 frame: indicator 0x01, opcode, parameter length, parameters.
    public var h4Frame: [UInt8] {
        var frame: [UInt8] = [0x01, UInt8(truncatingIfNeeded: Self.opcode.rawValue),
                              UInt8(truncatingIfNeeded: Self.opcode.rawValue >> 8), 0]
        frame.reserveCapacity(4 + 32)
        encodeParameters(into: &frame)
        // Every command here has at most 255 parameter bytes by construction (the spec's limit).
        frame[3] = UInt8(truncatingIfNeeded: frame.count - 4)
        return frame
    }

    /// The opcode of this command.
    public var opcode: HCIOpcode { Self.opcode }
}

/// A command whose Command Complete event carries return parameters worth decoding.
public protocol HCICommandWithReturn: HCICommand {
    associatedtype ReturnParameters: Sendable
    /// Decodes the return parameters of a successful Command Complete event; `bytes`
    /// start with the Status byte, which the caller has already checked is 0x00.
    static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters
}

extension Array where Element == UInt8 {
    @inlinable mutating func appendLittleEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// Appends the low 24 bits, as the extended advertising interval fields need.
    @inlinable mutating func appendLittleEndian24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
    }

    @inlinable mutating func appendLittleEndian(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    @inlinable mutating func append(_ address: BluetoothAddress) {
        append(contentsOf: address.littleEndianBytes)
    }
}

/// Folds up to 8 bytes, least significant first, into an integer.
@usableFromInline
func littleEndianUInt64(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var value: UInt64 = 0
    for (index, byte) in bytes.prefix(8).enumerated() { value |= UInt64(byte) << UInt64(index * 8) }
    return value
}
