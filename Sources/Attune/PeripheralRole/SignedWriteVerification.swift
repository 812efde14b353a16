import Transport

/// Where a connected central's Signed Write Commands are verified from: the CSRK it
/// distributed when it bonded with us, and the last sign counter we accepted, both kept
/// with its bond in the store.
enum SignedWriteVerification: Sendable {
    /// No signed write has arrived on this link yet; the store has not been asked.
    case unchecked
    /// The central has no bond with a CSRK: its signed writes are dropped.
    case unbonded
    /// Verified with the bond in the record at this address; `kept` is the counter the
    /// store holds.
    case bonded(address: BluetoothAddress, type: BluetoothAddressType, kept: UInt32?)
}
