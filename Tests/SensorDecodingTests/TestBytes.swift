import BluetoothCore

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

func address(_ text: String) -> BluetoothAddress {
    BluetoothAddress(text) ?? BluetoothAddress(rawValue: 0)
}
