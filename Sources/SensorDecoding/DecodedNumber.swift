/// A decoded number held as an exact decimal, significand × 10^exponent.
///
/// Sensor values are integers times decimal factors (0.01 °C, 0.1 Pa); held in binary
/// floating point they print as 21.499999999999996. Held as decimals they print as the
/// specification's table does, and integers print without a fraction (72, not 72.0). Binary
/// floats from the peer (float32) are taken at their shortest round-trip decimal.
public struct DecodedNumber: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Normalised: no trailing decimal zeros (zero is 0 × 10^0), so equal values are equal.
    public let significand: Int64
    /// The power of ten, within ±9999.
    public let exponent: Int

    /// `significand` × 10^`exponent`.
    public init(significand: Int64, exponent: Int = 0) {
        var s = significand
        // Far beyond any double; bounding it keeps every exponent sum and negation in range.
        var e = max(-Self.exponentLimit, min(Self.exponentLimit, exponent))
        if s == 0 { e = 0 }
        while s != 0, s % 10 == 0, e < Self.exponentLimit {
            s /= 10
            e += 1
        }
        self.significand = s
        self.exponent = e
    }

    /// An integer.
    public init(_ integer: Int64) { self.init(significand: integer, exponent: 0) }

    /// Exponents are held within ±9999.
    static let exponentLimit = 9999

    /// The value as an integer, when it is one and fits.
    public var exactInteger: Int64? {
        guard exponent >= 0 else { return nil }
        var value = significand
        for _ in 0..<exponent {
            let (next, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            value = next
        }
        return value
    }

    /// The shortest decimal that reads back as `value`; nil for NaN and infinities.
    public init?(double value: Double) {
        guard value.isFinite else { return nil }
        guard let parsed = Self.parse(value.description) else { return nil }
        self = parsed
    }

    /// The shortest decimal that reads back as the 32-bit `value` (so 0.1 stays 0.1, not
    /// 0.10000000149011612); nil for NaN and infinities.
    public init?(float value: Float) {
        guard value.isFinite else { return nil }
        guard let parsed = Self.parse(value.description) else { return nil }
        self = parsed
    }

    /// The nearest binary double.
    public var doubleValue: Double {
        guard exponent != 0 else { return Double(significand) }
        // Power of ten by exponentiation; exponent is bounded by the Int16 clamp above.
        let e = max(-400, min(400, exponent))
        var scale = 1.0
        for _ in 0..<abs(e) { scale *= 10 }
        return e < 0 ? Double(significand) / scale : Double(significand) * scale
    }

    /// Exact when the product's significand fits 64 bits; otherwise the factors lose their
    /// last digits first (a relative error below 1e-17), never falling back to binary.
    public func multiplied(by other: DecodedNumber) -> DecodedNumber {
        var a = significand
        var b = other.significand
        // Both exponents are within ±exponentLimit, so the sum cannot overflow.
        var e = exponent + other.exponent
        while true {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            if !overflow { return DecodedNumber(significand: product, exponent: e) }
            if a.magnitude >= b.magnitude { a /= 10 } else { b /= 10 }
            e += 1
        }
    }

    /// Ordered by value.
    public static func < (a: DecodedNumber, b: DecodedNumber) -> Bool { a.doubleValue < b.doubleValue }

    /// JSON number text: `72`, `21.5`, `-0.0625`, `1.5e-12`.
    public var description: String {
        let negative = significand < 0
        let digits = String(significand.magnitude)
        var text: String
        if exponent >= 0 {
            text = digits.count + exponent <= 21 ? digits + String(repeating: "0", count: exponent)
                                                 : Self.scientific(digits, exponent)
        } else {
            let places = -exponent
            if places < digits.count {
                let split = digits.index(digits.endIndex, offsetBy: -places)
                text = String(digits[..<split]) + "." + String(digits[split...])
            } else if places - digits.count <= 6 {
                text = "0." + String(repeating: "0", count: places - digits.count) + digits
            } else {
                text = Self.scientific(digits, exponent)
            }
        }
        if negative { text = "-" + text }
        return text
    }

    /// `d.ddd` e `n` for digits × 10^exponent.
    private static func scientific(_ digits: String, _ exponent: Int) -> String {
        let power = exponent + digits.count - 1
        let head = String(digits.prefix(1))
        let tail = String(digits.dropFirst())
        return head + (tail.isEmpty ? "" : "." + tail) + "e" + String(power)
    }

    /// Reads Swift's shortest float descriptions: `21.5`, `-3.0`, `1e-07`, `3.4028235e+38`.
    static func parse(_ text: String) -> DecodedNumber? {
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(text[text.index(after: e)...].drop(while: { $0 == "+" })) else { return nil }
            exponent = value
            mantissa = text[..<e]
        }
        var negative = false
        if mantissa.first == "-" {
            negative = true
            mantissa = mantissa.dropFirst()
        }
        var significand: Int64 = 0
        var seenPoint = false
        for c in mantissa {
            if c == "." {
                guard !seenPoint else { return nil }
                seenPoint = true
                continue
            }
            guard let d = c.wholeNumberValue, c.isASCII else { return nil }
            let (shifted, o1) = significand.multipliedReportingOverflow(by: 10)
            let (added, o2) = shifted.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            significand = added
            if seenPoint { exponent -= 1 }
        }
        return DecodedNumber(significand: negative ? -significand : significand, exponent: exponent)
    }
}
