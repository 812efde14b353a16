import HCI

/// One packet on the kernel's management channel (`HCI_CHANNEL_CONTROL`, BlueZ
/// doc/mgmt-api.txt): event or command code, controller index and parameter length,
/// all little-endian, then the parameters.
///
/// The kernel is trusted no further than a peer: a packet whose declared length does not
/// fit what was read is refused, and every field reader checks its bounds.
struct MgmtPacket: Hashable, Sendable {
    static let headerLength = 6
    /// "No controller" (`MGMT_INDEX_NONE`).
    static let noIndex: UInt16 = 0xFFFF

    var code: UInt16
    var index: UInt16
    var parameters: ArraySlice<UInt8>

    /// Nil when the packet is shorter than its header or its declared parameter length.
    /// Bytes past the declared length are ignored.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= Self.headerLength else { return nil }
        let length = Int(UInt16(bytes[4]) | UInt16(bytes[5]) << 8)
        guard bytes.count - Self.headerLength >= length else { return nil }
        code = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        index = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        parameters = bytes[Self.headerLength..<(Self.headerLength + length)]
    }

    /// A command to send: nil when the parameters do not fit the 16-bit length.
    static func command(_ opcode: UInt16, index: UInt16, parameters: [UInt8] = []) -> [UInt8]? {
        guard parameters.count <= Int(UInt16.max) else { return nil }
        let length = UInt16(parameters.count)
        return [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
                UInt8(length & 0xFF), UInt8(length >> 8)] + parameters
    }
}

/// Bounds-checked little-endian reads from a packet's parameters; every read returns nil
/// past the end instead of trapping.
struct MgmtReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var remaining: Int { bytes.count }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count >= count else { return nil }
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return taken
    }

    mutating func uint8() -> UInt8? { take(1)?.first }

    mutating func uint16() -> UInt16? {
        guard let two = take(2) else { return nil }
        return UInt16(two[two.startIndex]) | UInt16(two[two.startIndex + 1]) << 8
    }

    mutating func uint32() -> UInt32? {
        guard let four = take(4) else { return nil }
        return four.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() -> UInt64? {
        guard let eight = take(8) else { return nil }
        return eight.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Address (6, least significant first) and Address_Type (1).
    mutating func address(adapterIndex: UInt16) -> KernelPeer? {
        guard let six = take(6), let address = BluetoothAddress(littleEndian: six), let raw = uint8(),
              let type = KernelPeer.AddressType(rawValue: raw) else { return nil }
        return KernelPeer(adapterIndex: adapterIndex, address: address, addressType: type)
    }
}

extension UInt16 {
    var mgmtBytes: [UInt8] { [UInt8(self & 0xFF), UInt8(self >> 8)] }
}

extension UInt32 {
    var mgmtBytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) } }
}

extension UInt64 {
    var mgmtBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) } }
}
