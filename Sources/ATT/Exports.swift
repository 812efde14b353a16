// The shared vocabulary (UUIDs, handles, opcodes, ByteReader, MonotonicTime) lives in
// BluetoothCore; re-exported so `import ATT` keeps bringing it in.
@_exported import BluetoothCore
