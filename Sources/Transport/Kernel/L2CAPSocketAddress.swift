import CBlueZ
import Glibc

/// An L2CAP socket address for the LE ATT fixed channel: `sockaddr_l2` with
/// PSM 0 and CID 4 (Core Vol 3 Part A 2.1), used for both bind and connect.
public struct L2CAPSocketAddress: Hashable, Sendable {
    /// The fixed channel of the Attribute Protocol on LE links.
    public static let attributeProtocolCID: UInt16 = 0x0004

    public var address: BluetoothAddress
    public var addressType: LEAddressType
    public var cid: UInt16

    public init(address: BluetoothAddress, addressType: LEAddressType, cid: UInt16 = attributeProtocolCID) {
        self.address = address
        self.addressType = addressType
        self.cid = cid
    }

    /// The kernel structure: family AF_BLUETOOTH, PSM 0, bdaddr least-significant
    /// byte first, CID and PSM little-endian, bdaddr_type 1 (LE public) or 2 (LE random).
    public var sockaddr: sockaddr_l2 {
        var raw = sockaddr_l2()
        raw.l2_family = sa_family_t(AF_BLUETOOTH)
        raw.l2_psm = 0
        let b = address.bytes
        raw.l2_bdaddr = bdaddr_t(b: (b[0], b[1], b[2], b[3], b[4], b[5]))
        raw.l2_cid = cid.littleEndian
        raw.l2_bdaddr_type = addressType.rawValue
        return raw
    }

    /// Reads a `sockaddr_l2` the kernel filled in; nil for anything that is
    /// not an LE address.
    public init?(_ raw: sockaddr_l2) {
        guard raw.l2_family == sa_family_t(AF_BLUETOOTH),
              let type = LEAddressType(rawValue: raw.l2_bdaddr_type) else { return nil }
        let b = raw.l2_bdaddr.b
        self.init(address: BluetoothAddress(littleEndianBytes: [b.0, b.1, b.2, b.3, b.4, b.5])!,
                  addressType: type, cid: UInt16(littleEndian: raw.l2_cid))
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        var raw = sockaddr
        return try withUnsafePointer(to: &raw) { pointer in
            try pointer.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { address in
                try body(address, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
    }
}
