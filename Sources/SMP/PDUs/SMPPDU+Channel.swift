// Every multi-octet value in this module (keys, confirm and random values, DHKey,
// public-key coordinates, addresses inside f5/f6) is held least significant octet first,
// exactly as SMP PDUs and HCI commands carry it. The spec writes the same values most
// significant octet first (its sample data reads that way), so a test reverses the spec's
// hex strings once and compares byte for byte. BluetoothCrypto below works in the cipher
// standards' order (FIPS-197, RFC 4493, SEC 1); the toolbox reverses at that border.

extension SMPPDU {
    /// The LE fixed channel the Security Manager uses (Vol 3 Part A §2.1).
    public static let channelID: UInt16 = 0x0006
    /// The minimum LE SMP MTU (Vol 3 Part H §3.2): every SMP PDU fits in 65 octets.
    public static let mtu = 65
}
