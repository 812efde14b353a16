// The shared vocabulary (addresses, MonotonicTime) and the crypto module; re-exported so
// `import SMP` brings in what its API uses.
@_exported import BluetoothCore
@_exported import BluetoothCrypto
