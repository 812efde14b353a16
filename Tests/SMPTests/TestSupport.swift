import BluetoothCore
@testable import SMP

/// Parses hex as written (most significant byte first), ignoring spaces.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8.filter { $0 != UInt8(ascii: " ") })
    var out: [UInt8] = []
    var i = 0
    while i + 1 < digits.count {
        out.append(UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) ?? 0)
        i += 2
    }
    return out
}

/// A value the spec writes most significant octet first, in this module's order (least first).
func le(_ hex: String) -> [UInt8] { bytes(hex).reversed() }
