/// Splits an H4 byte stream (UART transport, Core Spec Vol 4 Part A) into whole packets.
///
/// Bytes arrive in whatever pieces the stream delivers: a read can end mid-header or
/// mid-payload, or hold several packets. The decoder keeps the tail and hands out only
/// complete packets, each with its indicator byte first. It is sans-I/O: no reads happen here.
public struct H4StreamDecoder: Sendable {
    /// Why the stream can no longer be framed. H4 has no resynchronisation, so after
    /// one of these the stream is unusable and the host must end.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The indicator byte at `offset` (counted from the start of the stream) is not one of 01–05.
        case unknownPacketIndicator(UInt8, offset: Int)
        /// A packet announces a payload longer than this decoder accepts.
        case packetTooLong(indicator: UInt8, length: Int, offset: Int)

        public var description: String {
            switch self {
            case .unknownPacketIndicator(let byte, let offset):
                "H4 stream: unknown packet indicator 0x\(String(byte, radix: 16)) at stream offset \(offset)"
            case .packetTooLong(let indicator, let length, let offset):
                "H4 stream: packet type 0x\(String(indicator, radix: 16)) at stream offset \(offset) announces \(length) bytes, above the limit"
            }
        }
    }

    private var buffer: [UInt8] = []
    private var start = 0
    private var consumed = 0
    /// The largest payload accepted, so a corrupt length cannot make memory grow without bound.
    public let maximumPayloadLength: Int

    /// - Parameter maximumPayloadLength: the largest payload accepted; the default fits any
    ///   HCI packet (ACL data length is 16 bits).
    public init(maximumPayloadLength: Int = 65_535) {
        self.maximumPayloadLength = maximumPayloadLength
    }

    /// The number of bytes held that do not yet make a whole packet.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends bytes read from the stream.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next complete packet (indicator byte first), or nil when more bytes are needed.
    public mutating func nextPacket() throws(Failure) -> [UInt8]? {
        let available = buffer.count - start
        guard available >= 1 else { return nil }
        let indicator = buffer[start]
        let headerLength: Int
        switch indicator {
        case 0x01, 0x03: headerLength = 3  // command, SCO: opcode/handle (2) + length (1)
        case 0x02, 0x05: headerLength = 4  // ACL, ISO: handle (2) + length (2)
        case 0x04: headerLength = 2        // event: code (1) + length (1)
        default: throw .unknownPacketIndicator(indicator, offset: consumed)
        }
        guard available >= 1 + headerLength else { return nil }
        let payloadLength: Int
        switch indicator {
        case 0x01, 0x03: payloadLength = Int(buffer[start + 3])
        case 0x04: payloadLength = Int(buffer[start + 2])
        case 0x02: payloadLength = Int(buffer[start + 3]) | Int(buffer[start + 4]) << 8
        default: payloadLength = (Int(buffer[start + 3]) | Int(buffer[start + 4]) << 8) & 0x3FFF
        }
        guard payloadLength <= maximumPayloadLength else {
            throw .packetTooLong(indicator: indicator, length: payloadLength, offset: consumed)
        }
        let total = 1 + headerLength + payloadLength
        guard available >= total else { return nil }
        let packet = Array(buffer[start..<(start + total)])
        start += total
        consumed += total
        // Compact now and then so a long session does not keep every byte it ever read.
        if start >= 4096 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return packet
    }
}
