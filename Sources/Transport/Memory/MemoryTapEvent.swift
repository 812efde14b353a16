import HCI

/// What a tap on a ``MemoryRadio`` sees: links coming up, every ATT PDU in both
/// directions, and links going down, in the order they happened on each link.
///
/// `connection` numbers the links of one radio from 1, like HCI connection handles.
public enum MemoryTapEvent: Hashable, Sendable {
    /// A central connected to an advertising peripheral.
    case connected(connection: UInt16, central: BluetoothAddress, peripheral: BluetoothAddress)
    /// One ATT PDU crossed the link; `fromCentral` tells the direction.
    case pdu(connection: UInt16, fromCentral: Bool, [UInt8])
    /// The link ended; `reason` is the Disconnection Complete reason the central saw.
    case disconnected(connection: UInt16, reason: HCIStatus)
}
