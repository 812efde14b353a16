// The shared vocabulary (UUIDs, addresses, ByteReader) lives in BluetoothCore;
// re-exported so `import HCI` keeps bringing it in.
@_exported import BluetoothCore
