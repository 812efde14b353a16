/// Cuts an L2CAP basic frame into HCI ACL data packets no longer than the controller's
/// buffer (Vol 3 Part A §7.2.1; Vol 4 Part E §5.4.2).
///
/// The first packet carries Packet_Boundary_Flag 0b00 (first, non-automatically-flushable,
/// the only start flag a host may use on LE), the rest 0b01 (continuing).
public enum L2CAPFragmenter {
    /// Returns whole H4 packets (indicator 0x02 first), in sending order.
    /// - Parameters:
    ///   - frame: the L2CAP frame, basic header included.
    ///   - maximumFragmentLength: the controller's ACL data packet length; at least 1.
    public static func fragments(handle: UInt16, frame: [UInt8], maximumFragmentLength: Int) -> [[UInt8]] {
        let step = max(1, maximumFragmentLength)
        var packets: [[UInt8]] = []
        packets.reserveCapacity((frame.count + step - 1) / step)
        var offset = 0
        repeat {
            let end = min(frame.count, offset + step)
            let boundary: UInt16 = offset == 0 ? 0b00 : 0b01
            let word = (handle & 0x0FFF) | boundary << 12
            var packet: [UInt8] = [0x02, UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
                                   UInt8(truncatingIfNeeded: end - offset), UInt8(truncatingIfNeeded: (end - offset) >> 8)]
            packet.append(contentsOf: frame[offset..<end])
            packets.append(packet)
            offset = end
        } while offset < frame.count
        return packets
    }

    /// Prefixes a payload with the L2CAP basic header (length, channel ID).
    public static func basicFrame(channel: L2CAPChannelID, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [UInt8(truncatingIfNeeded: payload.count), UInt8(truncatingIfNeeded: payload.count >> 8),
                              UInt8(truncatingIfNeeded: channel.rawValue), UInt8(truncatingIfNeeded: channel.rawValue >> 8)]
        frame.reserveCapacity(4 + payload.count)
        frame.append(contentsOf: payload)
        return frame
    }
}
