import ATT

/// Who listens to which characteristic: subscriber counts per value handle and kind, so
/// that only the first subscriber writes the CCCD and only the last one clears it.
struct SubscriptionTable: Sendable {
    struct Entry: Sendable {
        var cccd: AttributeHandle
        var notify = 0
        var indicate = 0
        /// The CCCD value these counts call for (Vol 3 Part G §3.3.3.3).
        var configuration: UInt16 { (notify > 0 ? 0x0001 : 0) | (indicate > 0 ? 0x0002 : 0) }
    }

    var entries: [AttributeHandle: Entry] = [:]

    /// Adds (delta +1) or removes (−1) one subscriber; returns the CCCD write needed, if
    /// the configuration changes.
    mutating func change(_ valueHandle: AttributeHandle, cccd: AttributeHandle, kind: SubscriptionKind, by delta: Int)
        -> (cccd: AttributeHandle, value: UInt16)?
    {
        var entry = entries[valueHandle] ?? Entry(cccd: cccd)
        let before = entry.configuration
        switch kind {
        case .notify: entry.notify = max(0, entry.notify + delta)
        case .indicate: entry.indicate = max(0, entry.indicate + delta)
        }
        let after = entry.configuration
        entries[valueHandle] = entry.notify == 0 && entry.indicate == 0 ? nil : entry
        return before == after ? nil : (entry.cccd, after)
    }

    /// The kind that an unsubscribe drops: notify if counted, else indicate.
    func kindToDrop(_ valueHandle: AttributeHandle) -> SubscriptionKind? {
        guard let e = entries[valueHandle] else { return nil }
        return e.notify > 0 ? .notify : (e.indicate > 0 ? .indicate : nil)
    }

    /// Subscriber count for a characteristic.
    func count(_ valueHandle: AttributeHandle) -> Int {
        entries[valueHandle].map { $0.notify + $0.indicate } ?? 0
    }
}
