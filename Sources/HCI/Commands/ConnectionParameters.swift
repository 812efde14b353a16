/// The connection parameters an initiator asks for (Vol 4 Part E §7.8.12 and §7.8.66).
public struct ConnectionParameters: Hashable, Sendable {
    /// In units of 1.25 ms, 0x0006–0x0C80.
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    /// Peripheral latency in connection events, 0x0000–0x01F3.
    public var maxLatency: UInt16
    /// In units of 10 ms, 0x000A–0x0C80.
    public var supervisionTimeout: UInt16
    /// In units of 0.625 ms.
    public var minCELength: UInt16
    public var maxCELength: UInt16

    public init(intervalMin: UInt16 = 0x0018, intervalMax: UInt16 = 0x0028, maxLatency: UInt16 = 0,
                supervisionTimeout: UInt16 = 0x01F4, minCELength: UInt16 = 0, maxCELength: UInt16 = 0) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    func encode(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(intervalMin)
        buffer.appendLittleEndian(intervalMax)
        buffer.appendLittleEndian(maxLatency)
        buffer.appendLittleEndian(supervisionTimeout)
        buffer.appendLittleEndian(minCELength)
        buffer.appendLittleEndian(maxCELength)
    }
}
