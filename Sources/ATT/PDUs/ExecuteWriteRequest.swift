/// ATT_EXECUTE_WRITE_REQ (Vol 3 Part F §3.4.6.3).
public struct ExecuteWriteRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.executeWriteRequest

    public enum Flags: UInt8, Hashable, Sendable {
        /// Cancel all prepared writes.
        case cancel = 0x00
        /// Immediately write all pending prepared values.
        case write = 0x01
    }

    public var flags: Flags

    public init(flags: Flags) { self.flags = flags }

    @inlinable
    public init(parameters reader: inout ByteReader) throws(ATTDecodingError) {
        let at = reader.offset
        let raw = try reader.readUInt8("flags")
        guard let flags = Flags(rawValue: raw) else {
            throw ATTDecodingError(.invalidValue(field: "flags", value: Int(raw)), offset: at, opcode: reader.opcode)
        }
        self.flags = flags
    }

    public var parameterLength: Int { 1 }
    @inlinable
    public func appendParameters(to buffer: inout [UInt8]) { buffer.append(flags.rawValue) }
    public var description: String { flags == .write ? "write" : "cancel" }
}
