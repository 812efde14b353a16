import BluetoothCore
@testable import SMP
// `bytes("…")` for every file of the target.
@_exported import HexTestSupport

/// A value the spec writes most significant octet first, in this module's order (least first).
func le(_ hex: String) -> [UInt8] { bytes(hex).reversed() }
