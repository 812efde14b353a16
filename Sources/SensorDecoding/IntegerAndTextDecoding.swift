/// The two's-complement value of the low `bytes` × 8 bits of `raw`.
func signExtend(_ raw: UInt64, bytes: Int) -> Int64 {
    let bits = UInt64(max(1, min(bytes, 8)) * 8)
    if bits == 64 { return Int64(bitPattern: raw) }
    let sign: UInt64 = 1 << (bits - 1)
    let masked = raw & ((1 << bits) - 1)
    return masked & sign != 0 ? Int64(bitPattern: masked | ~((1 << bits) - 1)) : Int64(bitPattern: masked)
}

/// Decodes UTF-8, reporting the offset of the first invalid byte.
func decodeUTF8(_ bytes: ArraySlice<UInt8>, field: String, base: Int) throws(SensorDecodingError) -> String {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var consumed = 0
    loop: while true {
        switch parser.parseScalar(from: &iterator) {
        case let .valid(scalar): consumed += scalar.count
        case .emptyInput: break loop
        case .error: throw SensorDecodingError(.invalidUTF8(field: field), offset: base + consumed)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
