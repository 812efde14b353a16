/// The `scan:` section: how every adapter scans.
///
/// Interval and window are kept in the controller's 0.625 ms units (Vol 4 Part E §7.8.10),
/// rounded from the milliseconds written, within the spec's 2.5 ms ... 10.24 s.
public struct ScanConfiguration: Hashable, Sendable {
    public enum Mode: String, Hashable, Sendable, CaseIterable {
        /// Listen only.
        case passive
        /// Send scan requests, for scan responses.
        case active
        /// Passive, turning active for devices whose decoder needs the scan response.
        case auto
    }

    public var mode: Mode
    /// LE_Scan_Interval in 0.625 ms units (4...16384).
    public var intervalUnits: UInt16
    /// LE_Scan_Window in 0.625 ms units (4...16384, at most the interval).
    public var windowUnits: UInt16

    /// Passive, 320 ms interval, 300 ms window: nearly continuous listening, with a gap for
    /// the controller's other work.
    public init(mode: Mode = .passive, intervalUnits: UInt16 = 512, windowUnits: UInt16 = 480) {
        self.mode = mode
        self.intervalUnits = intervalUnits
        self.windowUnits = windowUnits
    }

    public var intervalMilliseconds: Double { Double(intervalUnits) * 0.625 }
    public var windowMilliseconds: Double { Double(windowUnits) * 0.625 }

    static let unitRange: ClosedRange<Double> = 4...16384

    init(_ node: YAMLNode, at path: ConfigPath) throws(GatewayConfigError) {
        let m = try MappingReader(node, at: path, keys: ["mode", "interval_ms", "window_ms"])
        mode = try m.optional("mode") { n, p throws(GatewayConfigError) in try Read.choice(n, p, Mode.self) } ?? .passive
        let interval = try m.optional("interval_ms") { n, p throws(GatewayConfigError) in try Self.units(n, p) }
        let window = try m.optional("window_ms") { n, p throws(GatewayConfigError) in try Self.units(n, p) }
        intervalUnits = interval ?? max(512, window ?? 0)
        windowUnits = window ?? min(480, intervalUnits)
        if windowUnits > intervalUnits {
            throw m.error("window_ms", "\(number(Double(windowUnits) * 0.625)) ms is longer than the interval "
                + "(\(number(Double(intervalUnits) * 0.625)) ms)")
        }
    }

    static func units(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> UInt16 {
        let ms = try Read.number(node, path)
        let units = (ms / 0.625).rounded()
        guard unitRange.contains(units) else {
            throw Read.fail(node, path, "must be 2.5 to 10240 ms")
        }
        // In 4...16384, checked above: the conversion cannot trap.
        return UInt16(units)
    }
}
