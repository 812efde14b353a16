/// How to scan.
public struct ScanConfiguration: Hashable, Sendable {
    /// Active scanning asks for scan responses.
    public var active: Bool
    /// In units of 0.625 ms.
    public var interval: UInt16
    public var window: UInt16
    public var filterDuplicates: Bool

    public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010, filterDuplicates: Bool = false) {
        self.active = active
        self.interval = interval
        self.window = window
        self.filterDuplicates = filterDuplicates
    }
}
