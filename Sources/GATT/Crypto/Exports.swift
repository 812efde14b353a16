// AES-CMAC moved to BluetoothCrypto so GATT and SMP share one copy; re-exported so
// `import GATT` keeps bringing ``AESCMAC`` in, as before.
@_exported import BluetoothCrypto
