/// What a pcapng Interface Description Block says about the packets that name it.
struct PcapngInterface {
    var linkType: PcapLinkType?
    var rawLinkType: UInt16
    /// Timestamp units per second (if_tsresol; 10^6 by default).
    var ticksPerSecond: UInt64 = 1_000_000
    /// SnapLen: no packet captures more (0: no limit).
    var snapLength = 0

    /// Converts a timestamp in interface ticks to microseconds, without trapping on
    /// hostile values.
    func microseconds(_ ticks: UInt64) -> Int64 {
        if ticksPerSecond == 1_000_000 { return Int64(bitPattern: ticks) }
        if ticksPerSecond < 1_000_000 {
            let factor = 1_000_000 / max(ticksPerSecond, 1)
            return Int64(bitPattern: ticks &* factor)
        }
        let divisor = ticksPerSecond / 1_000_000
        return Int64(bitPattern: ticks / max(divisor, 1))
    }
}
