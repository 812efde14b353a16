/// How to advertise. Connectable, scannable undirected advertising with legacy PDUs,
/// so every scanner sees it.
public struct AdvertisingConfiguration: Hashable, Sendable {
    /// At most 31 bytes (legacy PDUs).
    public var data: [UInt8]
    /// At most 31 bytes.
    public var scanResponse: [UInt8]
    /// In units of 0.625 ms.
    public var interval: UInt16
    public var connectable: Bool

    public init(data: [UInt8], scanResponse: [UInt8] = [], interval: UInt16 = 0x0020, connectable: Bool = true) {
        self.data = data
        self.scanResponse = scanResponse
        self.interval = interval
        self.connectable = connectable
    }
}
