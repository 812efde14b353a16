/// Joins chained LE Extended Advertising Reports: a controller splits long advertising
/// data over several reports with Data_Status "incomplete, more data to come", and only
/// the last one says complete or truncated (Vol 4 Part E §7.7.65.13).
///
/// Memory is bounded: at most ``maximumChains`` chains are open, and a chain longer than
/// ``maximumDataLength`` (the most extended advertising can carry) is cut and delivered
/// as truncated.
public struct ExtendedReportAssembler: Sendable {
    struct Key: Hashable, Sendable {
        var address: BluetoothAddress
        var addressType: UInt8
        var sid: UInt8
    }

    public static let maximumDataLength = 1650
    public static let maximumChains = 16
    private var chains: [Key: [UInt8]] = [:]

    public init() {}

    /// Feeds one report; returns the report to deliver, with the chain's whole data, or nil
    /// while the chain goes on.
    public mutating func receive(_ report: LEExtendedAdvertisingReport) -> AdvertisingReport? {
        let key = Key(address: report.address, addressType: report.addressType, sid: report.advertisingSID)
        var data = chains.removeValue(forKey: key) ?? []
        data.append(contentsOf: report.data)
        var eventType = report.eventType
        let status = (eventType >> 5) & 0x3
        if status == 1 {
            if data.count <= Self.maximumDataLength && (chains.count < Self.maximumChains) {
                chains[key] = data
                return nil
            }
            // Too long, or too many chains at once: hand out what there is as truncated.
            eventType = (eventType & ~0x0060) | 0x0040
        }
        return AdvertisingReport(address: report.address, addressType: report.addressType, eventType: eventType,
                                 rssi: report.rssi, data: Array(data.prefix(Self.maximumDataLength)))
    }

    /// Forgets every open chain, e.g. when scanning stops.
    public mutating func reset() { chains = [:] }
}
