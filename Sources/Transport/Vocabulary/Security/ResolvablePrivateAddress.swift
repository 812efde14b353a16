import HCI
import SMP

/// Resolvable private addresses (Vol 6 Part B §1.3.2.2): a 24-bit hash of the IRK and a
/// 24-bit prand whose two top bits are 0b01. A bonded peer that keeps changing its address
/// is found again by checking each stored IRK with `ah` (Vol 3 Part H §2.2.2).
public enum ResolvablePrivateAddress {
    /// Whether the address has the form of a resolvable private address (random type, top bits 0b01).
    public static func isResolvable(_ address: BluetoothAddress, type: BluetoothAddressType) -> Bool {
        type == .random && address.bytes.0 >> 6 == 0b01
    }

    /// Whether `address` was made from `irk` (16 octets, least significant first). False
    /// for anything malformed, never a trap.
    public static func resolves(_ address: BluetoothAddress, with irk: [UInt8]) -> Bool {
        guard irk.count == 16 else { return false }
        let bytes = address.littleEndianBytes
        let hash = Array(bytes[0..<3]), prand = Array(bytes[3..<6])
        guard let computed = try? SecurityFunctions.ah(k: irk, r: prand) else { return false }
        return computed == hash
    }
}
