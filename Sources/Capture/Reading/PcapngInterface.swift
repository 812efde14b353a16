/// What a pcapng Interface Description Block says about the packets that name it.
struct PcapngInterface {
    var linkType: PcapLinkType?
    var rawLinkType: UInt16
    /// if_tsresol as written: MSB clear, a unit of 10^-n seconds; set, 2^-n (n is the
    /// low 7 bits). Microseconds (6) when the block has none.
    var resolution: UInt8 = 6
    /// if_tsoffset: seconds added to every timestamp of the interface (signed).
    var offsetSeconds: Int64 = 0
    /// SnapLen: no packet captures more (0: no limit).
    var snapLength = 0

    /// The resolution as the spec writes it ("10^-9 s", "2^-10 s"), for errors.
    var resolutionText: String { (resolution & 0x80 == 0 ? "10^-" : "2^-") + "\(resolution & 0x7F) s" }

    /// A timestamp in interface units as microseconds since 1970, exactly (rounded down
    /// to the microsecond) for every resolution a byte can name, with the offset added;
    /// nil when the result does not fit an Int64 of microseconds.
    func microseconds(_ units: UInt64) -> Int64? {
        let exponent = Int(resolution & 0x7F)
        let scaled: UInt64
        if resolution & 0x80 == 0 {
            if exponent <= 6 {
                let (product, overflow) = units.multipliedReportingOverflow(by: Self.powerOfTen(6 - exponent))
                guard !overflow else { return nil }
                scaled = product
            } else {
                // 10^19 is the largest power of ten a UInt64 holds; any finer unit is 0 µs.
                scaled = exponent - 6 <= 19 ? units / Self.powerOfTen(exponent - 6) : 0
            }
        } else {
            // units × 10^6 / 2^n, through the 128-bit product so nothing is lost or wraps.
            let (high, low) = units.multipliedFullWidth(by: 1_000_000)
            switch exponent {
            case 0:
                guard high == 0 else { return nil }
                scaled = low
            case 1..<64:
                guard high >> exponent == 0 else { return nil }
                scaled = high << (64 - exponent) | low >> exponent
            default:
                scaled = high >> (exponent - 64)
            }
        }
        guard scaled <= UInt64(Int64.max) else { return nil }
        let (offset, offsetOverflow) = offsetSeconds.multipliedReportingOverflow(by: 1_000_000)
        guard !offsetOverflow else { return nil }
        let (sum, sumOverflow) = Int64(scaled).addingReportingOverflow(offset)
        return sumOverflow ? nil : sum
    }

    static func powerOfTen(_ n: Int) -> UInt64 {
        var value: UInt64 = 1
        for _ in 0..<n { value *= 10 }
        return value
    }
}
