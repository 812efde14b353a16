import HCI

/// The HCI packets a controller would have exchanged with a host for one LE link, built
/// from what a transport without HCI access sees: the link coming up, each ATT PDU, and
/// the link going down. The memory radio and the kernel's ATT socket (the kernel owns
/// HCI) record through this, so tshark, btmon and `attune decode` open their captures
/// like those of a real controller (btsnoop datalink 1002).
public enum SynthesizedHCI {
    /// The longest ACL payload per packet: the LE Data Length Extension maximum, so long
    /// PDUs show real fragmentation.
    public static let aclFragment = 251

    /// HCI_LE_Connection_Complete (Vol 4 Part E §7.7.65.1) as the host received it:
    /// success, 30 ms interval, latency 0, 720 ms supervision timeout.
    /// - Parameters:
    ///   - isCentral: our role on the link (the event's Role field: 0 central, 1 peripheral).
    ///   - peerAddressType: 0 public, 1 random.
    public static func connectionComplete(handle: UInt16, isCentral: Bool, peerAddressType: UInt8,
                                          peer: BluetoothAddress, at time: Int64) -> CaptureRecord {
        var parameters: [UInt8] = [0x01, 0x00] + le16(handle) + [isCentral ? 0x00 : 0x01, peerAddressType]
        parameters += peer.littleEndianBytes
        parameters += le16(0x0018) + le16(0) + le16(0x0048) + [0x00]
        return event(0x3E, parameters, at: time)
    }

    /// One ATT PDU as an L2CAP basic frame on CID 4, cut into ACL packets: the first
    /// marked non-flushable when the host sent it and flushable when it received it, as
    /// hosts and controllers mark them.
    public static func attPDU(_ pdu: [UInt8], handle: UInt16, direction: CaptureDirection,
                              at time: Int64) -> [CaptureRecord] {
        let frame = le16(UInt16(truncatingIfNeeded: pdu.count)) + le16(0x0004) + pdu
        var records: [CaptureRecord] = []
        var offset = 0
        while offset < frame.count {
            let end = min(frame.count, offset + aclFragment)
            let boundary: ACLPacketBoundary = offset > 0 ? .continuing
                : direction == .sent ? .firstNonFlushable : .firstFlushable
            let packet = ACLDataPacket(handle: handle, boundary: boundary, data: frame[offset..<end])
            records.append(CaptureRecord(kind: .hci(.aclData), direction: direction,
                                         timestamp: time, payload: packet.encoded[...]))
            offset = end
        }
        return records
    }

    /// HCI_Disconnection_Complete (§7.7.5): success, the handle and the reason.
    public static func disconnectionComplete(handle: UInt16, reason: UInt8, at time: Int64) -> CaptureRecord {
        event(0x05, [0x00] + le16(handle) + [reason], at: time)
    }

    private static func event(_ code: UInt8, _ parameters: [UInt8], at time: Int64) -> CaptureRecord {
        CaptureRecord(kind: .hci(.event), direction: .received, timestamp: time,
                      payload: ([code, UInt8(parameters.count)] + parameters)[...])
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
}
