import BluetoothCore
#if canImport(Glibc)
import Glibc
#endif

/// H4 packets as a scripted controller writes them (indicator byte first), and the
/// blocking write every scripted controller uses.
public enum H4Packet {
    /// An HCI event: indicator 0x04, event code, parameter length, parameters.
    public static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [0x04, code, UInt8(truncatingIfNeeded: parameters.count)] + parameters
    }

    /// Command Complete (one credit) for `opcode` with its return parameters.
    public static func commandComplete(_ opcode: UInt16, _ returned: [UInt8]) -> [UInt8] {
        event(0x0E, [1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returned)
    }

    /// Command Status (one credit) for `opcode`.
    public static func commandStatus(_ opcode: UInt16, status: UInt8 = 0) -> [UInt8] {
        event(0x0F, [status, 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)])
    }

    /// Number Of Completed Packets for one handle.
    public static func completedPackets(handle: UInt16, count: UInt16 = 1) -> [UInt8] {
        event(0x13, [1, UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(count & 0xFF), UInt8(count >> 8)])
    }

    /// LE Connection Complete (success) with the controller as central's peer, as
    /// `role` 0x00 (we are central) or 0x01 (peripheral).
    public static func connectionComplete(handle: UInt16, role: UInt8 = 0x00, peer: BluetoothAddress,
                                          peerType: UInt8 = 0x01) -> [UInt8] {
        event(0x3E, [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), role, peerType]
              + peer.littleEndianBytes + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00])
    }

    /// One LE Advertising Report: `type` 0x00 ADV_IND, 0x03 ADV_NONCONN_IND, 0x04 SCAN_RSP;
    /// random address, RSSI -60.
    public static func advertisingReport(_ address: BluetoothAddress, type: UInt8, data: [UInt8]) -> [UInt8] {
        event(0x3E, [0x02, 1, type, 0x01] + address.littleEndianBytes + [UInt8(truncatingIfNeeded: data.count)] + data + [0xC4])
    }

    /// One ACL packet (first fragment, complete L2CAP frame) on the ATT channel (CID 4).
    public static func acl(_ pdu: [UInt8], handle: UInt16) -> [UInt8] {
        let l2cap = UInt16(truncatingIfNeeded: pdu.count)
        let length = l2cap &+ 4
        let flagged = handle | 0x2000
        return [0x02, UInt8(flagged & 0xFF), UInt8(flagged >> 8), UInt8(length & 0xFF), UInt8(length >> 8),
                UInt8(l2cap & 0xFF), UInt8(l2cap >> 8), 0x04, 0x00] + pdu
    }

    /// Writes all of `bytes`, blocking while the socket is full; false once the peer is
    /// gone (never SIGPIPE).
    public static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let sent = send(descriptor, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }
}
