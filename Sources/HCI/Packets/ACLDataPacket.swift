/// An HCI ACL data packet: 12-bit connection handle, packet boundary and broadcast flags,
/// a 16-bit data length, then data (Vol 4 Part E §5.4.2).
public struct ACLDataPacket: Hashable, Sendable {
    /// Connection handle, 0x000–0xEFF.
    public var handle: UInt16
    public var boundary: ACLPacketBoundary
    /// Broadcast_Flag (two bits); 0b00 is point-to-point, the only value LE uses.
    public var broadcast: UInt8
    /// The data, sharing storage with the decoded bytes.
    public var data: ArraySlice<UInt8>

    public init(handle: UInt16, boundary: ACLPacketBoundary, broadcast: UInt8 = 0, data: ArraySlice<UInt8>) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0x03
        self.data = data
    }

    /// Size of the header that precedes the data.
    public static let headerLength = 4

    /// Decodes a packet without its H4 indicator. The data length must match the bytes present.
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        guard bytes.count >= 4 else {
            throw HCIDecodingError(.truncated(field: "ACL header", needed: 4, available: bytes.count),
                                   in: "HCI ACL Data", offset: 0)
        }
        let s = bytes.startIndex
        let word = UInt16(bytes[s]) | UInt16(bytes[s &+ 1]) &<< 8
        let length = Int(UInt16(bytes[s &+ 2]) | UInt16(bytes[s &+ 3]) &<< 8)
        guard bytes.count &- 4 == length else {
            throw HCIDecodingError(.lengthMismatch(field: "data total length", declared: length, actual: bytes.count &- 4),
                                   in: "HCI ACL Data", offset: 2)
        }
        handle = word & 0x0FFF
        boundary = ACLPacketBoundary(rawValue: UInt8(truncatingIfNeeded: (word >> 12) & 0x3))!
        broadcast = UInt8(truncatingIfNeeded: word >> 14)
        data = bytes[(s &+ 4)...]
    }

    /// The packet without H4 indicator.
    public var encoded: [UInt8] {
        let word = handle | UInt16(boundary.rawValue) << 12 | UInt16(broadcast) << 14
        var out: [UInt8] = [UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
                            UInt8(truncatingIfNeeded: data.count), UInt8(truncatingIfNeeded: data.count >> 8)]
        out.append(contentsOf: data)
        return out
    }
}
