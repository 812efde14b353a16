/// An L2CAP basic information frame (B-frame): 16-bit payload length, 16-bit channel ID,
/// then the payload (Vol 3 Part A §3.1).
public struct L2CAPBasicFrame: Hashable, Sendable {
    public var channel: L2CAPChannelID
    /// The information payload, sharing storage with the decoded bytes.
    public var payload: ArraySlice<UInt8>

    public static let headerLength = 4

    public init(channel: L2CAPChannelID, payload: ArraySlice<UInt8>) {
        self.channel = channel
        self.payload = payload
    }

    /// Decodes a complete frame; the declared length must match the bytes present.
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        guard bytes.count >= 4 else {
            throw HCIDecodingError(.truncated(field: "basic header", needed: 4, available: bytes.count),
                                   in: "L2CAP B-frame", offset: 0)
        }
        let s = bytes.startIndex
        let length = Int(UInt16(bytes[s]) | UInt16(bytes[s &+ 1]) &<< 8)
        guard bytes.count &- 4 == length else {
            throw HCIDecodingError(.lengthMismatch(field: "length", declared: length, actual: bytes.count &- 4),
                                   in: "L2CAP B-frame", offset: 0)
        }
        channel = L2CAPChannelID(UInt16(bytes[s &+ 2]) | UInt16(bytes[s &+ 3]) &<< 8)
        payload = bytes[(s &+ 4)...]
    }

    /// The frame, header included.
    public var encoded: [UInt8] {
        var out: [UInt8] = [UInt8(truncatingIfNeeded: payload.count), UInt8(truncatingIfNeeded: payload.count >> 8),
                            UInt8(truncatingIfNeeded: channel.rawValue), UInt8(truncatingIfNeeded: channel.rawValue >> 8)]
        out.append(contentsOf: payload)
        return out
    }
}
