import ATT

/// The client's subscriptions: for each characteristic, the ``Subscription`` that
/// describes it (kept between links and restored on the next) and its subscriber counts
/// per kind, so that only the first subscriber writes the CCCD and only the last one
/// clears it. The one place a link's subscriptions live.
struct SubscriptionTable: Sendable {
    struct Entry: Sendable {
        var record: Subscription
        var notify = 0
        var indicate = 0
        /// The CCCD value these counts call for (Vol 3 Part G §3.3.3.3).
        var configuration: UInt16 { (notify > 0 ? 0x0001 : 0) | (indicate > 0 ? 0x0002 : 0) }
    }

    var entries: [AttributeHandle: Entry] = [:]

    /// Adds (delta +1) or removes (−1) one subscriber of `record`'s characteristic;
    /// returns the CCCD write needed, if the configuration changes.
    mutating func change(_ record: Subscription, kind: SubscriptionKind, by delta: Int)
        -> (cccd: AttributeHandle, value: UInt16)?
    {
        var entry = entries[record.valueHandle] ?? Entry(record: record)
        let before = entry.configuration
        switch kind {
        case .notify: entry.notify = max(0, entry.notify + delta)
        case .indicate: entry.indicate = max(0, entry.indicate + delta)
        }
        let after = entry.configuration
        entries[record.valueHandle] = entry.notify == 0 && entry.indicate == 0 ? nil : entry
        return before == after ? nil : (entry.record.configurationHandle, after)
    }

    /// The subscription recorded for a characteristic.
    func record(_ valueHandle: AttributeHandle) -> Subscription? { entries[valueHandle]?.record }

    /// The kind that an unsubscribe drops: notify if counted, else indicate.
    func kindToDrop(_ valueHandle: AttributeHandle) -> SubscriptionKind? {
        guard let e = entries[valueHandle] else { return nil }
        return e.notify > 0 ? .notify : (e.indicate > 0 ? .indicate : nil)
    }

    /// Subscriber count for a characteristic.
    func count(_ valueHandle: AttributeHandle) -> Int {
        entries[valueHandle].map { $0.notify + $0.indicate } ?? 0
    }

    /// Every subscription, in handle order.
    var records: [Subscription] { entries.values.map(\.record).sorted { $0.valueHandle < $1.valueHandle } }

    /// Forgets a characteristic's subscribers (its CCCD write was refused, or it is gone).
    mutating func remove(_ valueHandle: AttributeHandle) { entries[valueHandle] = nil }
}
