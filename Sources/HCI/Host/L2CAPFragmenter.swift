/// Cuts an L2CAP basic frame into HCI ACL data packets no longer than the controller's
/// buffer (Vol 3 Part A §7.2.1; Vol 4 Part E §5.4.2).
///
/// The first packet carries Packet_Boundary_Flag 0b00 (first, non-automatically-flushable,
/// the only start flag a host may use on LE), the rest 0b01 (continuing).
public enum L2CAPFragmenter {
    /// Returns whole H4 packets (indicator 0x02 first), in sending order, of the basic
    /// frame that carries `payload` on `channel`. The frame is never built on its own:
    /// its 4-byte header goes into the first packets and the payload is copied once,
    /// straight into the packets.
    /// - Parameters:
    ///   - payload: the frame's information payload (an ATT or SMP PDU), at most 65535 bytes.
    ///   - maximumFragmentLength: the controller's ACL data packet length; at least 1.
    public static func fragments(handle: UInt16, channel: L2CAPChannelID, payload: ArraySlice<UInt8>,
                                 maximumFragmentLength: Int) -> [[UInt8]] {
        let header = UInt32(UInt16(truncatingIfNeeded: payload.count)) | UInt32(channel.rawValue) << 16
        let frameLength = 4 + payload.count
        let step = max(1, maximumFragmentLength)
        var packets: [[UInt8]] = []
        packets.reserveCapacity((frameLength + step - 1) / step)
        var offset = 0
        repeat {
            let end = min(frameLength, offset + step)
            let boundary: UInt16 = offset == 0 ? 0b00 : 0b01
            let word = (handle & 0x0FFF) | boundary << 12
            var packet: [UInt8] = []
            packet.reserveCapacity(5 + end - offset)
            packet.append(0x02)
            packet.append(UInt8(truncatingIfNeeded: word))
            packet.append(UInt8(truncatingIfNeeded: word >> 8))
            packet.append(UInt8(truncatingIfNeeded: end - offset))
            packet.append(UInt8(truncatingIfNeeded: (end - offset) >> 8))
            // The part of the basic header (length, channel ID, little-endian) in this packet.
            var i = offset
            while i < min(end, 4) {
                packet.append(UInt8(truncatingIfNeeded: header >> (8 * UInt32(i))))
                i += 1
            }
            if end > 4 {
                let from = payload.startIndex + max(offset, 4) - 4
                packet.append(contentsOf: payload[from..<(payload.startIndex + end - 4)])
            }
            packets.append(packet)
            offset = end
        } while offset < frameLength
        return packets
    }
}
