/// Durations as the config writes them: `250ms`, `10s`, `10m`, `1h`, or a bare number of
/// seconds, decimals allowed (`1.5s`), greater than zero and at most 7 days.
public enum DurationText {
    /// The longest duration a config may give.
    public static let maximum = Duration.seconds(7 * 24 * 3600)

    /// Parses the text, exactly to the nanosecond; nil when it is not a duration or out of bounds.
    public static func parse(_ text: String) -> Duration? {
        let units: [(suffix: String, nanoseconds: Int64)] = [
            ("ms", 1_000_000), ("s", 1_000_000_000), ("m", 60_000_000_000), ("h", 3_600_000_000_000),
        ]
        var number = Substring(text)
        var unit: Int64 = 1_000_000_000
        for (suffix, ns) in units where text.hasSuffix(suffix) {
            // "ms" is tried before "s", so "250ms" is not read as "250m" + "s".
            number = number.dropLast(suffix.count)
            unit = ns
            break
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        let isDigits: (Substring) -> Bool = { $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard !whole.isEmpty, whole.count <= 12, fraction.count <= 9, isDigits(whole), isDigits(fraction),
              parts.count == 1 || !fraction.isEmpty,
              let w = Int64(whole), let f = fraction.isEmpty ? 0 : Int64(fraction)
        else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        let (wholeNs, overflow) = w.multipliedReportingOverflow(by: unit)
        // f < scale ≤ 10^9 and unit ≤ 3.6 × 10^12: split so the product cannot overflow.
        let fractionNs = (f * (unit / scale)) + (f * (unit % scale)) / scale
        guard !overflow else { return nil }
        let (ns, overflow2) = wholeNs.addingReportingOverflow(fractionNs)
        guard !overflow2, ns > 0, ns <= 7 * 24 * 3_600_000_000_000 else { return nil }
        return .nanoseconds(ns)
    }

    /// "250 ms", "10 s", "10 min", "1 h", "1500 ms": the largest unit that divides it evenly.
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return "\(seconds) s" }
        let total = ns &+ attoseconds / 1_000_000_000
        let units: [(Int64, String)] = [
            (3_600_000_000_000, "h"), (60_000_000_000, "min"), (1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us"),
        ]
        for (size, name) in units where total % size == 0 {
            return "\(total / size) \(name)"
        }
        return "\(total) ns"
    }
}
