import BluetoothCore
// `bytes("…")` for every file of the target.
@_exported import HexTestSupport

func address(_ text: String) -> BluetoothAddress {
    BluetoothAddress(text) ?? BluetoothAddress(rawValue: 0)
}
