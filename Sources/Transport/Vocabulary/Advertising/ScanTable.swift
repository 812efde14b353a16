import HCI

/// The devices one scan has seen, deciding which reports reach the application: the
/// duplicate filter behind `CentralManager.scan(services:allowDuplicates:)`, like Core
/// Bluetooth's `CBCentralManagerScanOptionAllowDuplicatesKey`. Sans-I/O: the caller
/// passes the time, and calls ``expire(at:)`` by ``nextDeadline``.
///
/// Without duplicates each device is delivered once, its scan response merged into its
/// advertisement: a scannable or connectable advertisement is held until its scan
/// response arrives or ``scanResponseWait`` passes. A later report that changes the device's data or name
/// delivers it again, marked ``Advertisement/isUpdate``. With duplicates every report is
/// delivered, merged with what the device sent before.
///
/// The table holds at most ``limit`` devices: past it the least recently seen is
/// forgotten (and would be discovered anew), so a street full of random addresses
/// cannot grow it.
public struct ScanTable: Sendable {
    /// Devices remembered by default: a busy street's worth, a few MB.
    public static let defaultLimit = 10_000
    /// How long a scannable advertisement waits for its scan response by default. The
    /// response follows within the same advertising event when the scan request is
    /// answered; a few advertising intervals cover a missed request.
    public static let defaultScanResponseWait: Duration = .milliseconds(500)

    /// The most devices remembered at once.
    public let limit: Int
    /// Every report, not each device once.
    public let allowDuplicates: Bool
    /// Whether the scan is active (sends scan requests), so scan responses may come.
    public let expectsScanResponses: Bool
    /// How long a scannable advertisement is held for its scan response.
    public let scanResponseWait: Duration

    /// A device: an address with its type (a public and a random address may coincide).
    struct Key: Hashable, Sendable {
        var address: BluetoothAddress
        var type: BluetoothAddressType?
    }

    /// One device, in a doubly linked list from most to least recently seen, by index.
    struct Entry: Sendable {
        var key: Key
        var advertisement: Advertisement
        /// A digest of what was last delivered; nil while not delivered yet.
        var delivered: Int?
        /// While held for a scan response: when to give up waiting.
        var holdUntil: ContinuousClock.Instant?
        var newer: Int = -1
        var older: Int = -1
    }

    private var entries: [Entry] = []
    private var index: [Key: Int] = [:]
    private var newest = -1
    private var oldest = -1
    /// Held devices in the order their waits end (each wait is as long, so arrival order).
    /// Entries of devices since delivered or forgotten are skipped when they come up.
    private var holds: [(key: Key, until: ContinuousClock.Instant)] = []
    private var holdsStart = 0

    /// - Parameters:
    ///   - limit: the most devices remembered (at least 1).
    ///   - allowDuplicates: deliver every report.
    ///   - expectsScanResponses: false for a passive scan, where nothing is held.
    ///   - scanResponseWait: how long a scannable advertisement waits for its response.
    public init(limit: Int = ScanTable.defaultLimit, allowDuplicates: Bool = false,
                expectsScanResponses: Bool = true, scanResponseWait: Duration = ScanTable.defaultScanResponseWait) {
        self.limit = max(1, limit)
        self.allowDuplicates = allowDuplicates
        self.expectsScanResponses = expectsScanResponses
        self.scanResponseWait = scanResponseWait
    }

    /// Devices remembered now (never more than ``limit``).
    public var count: Int { index.count }

    /// When the next held device is due, if any.
    public var nextDeadline: ContinuousClock.Instant? {
        holdsStart < holds.count ? holds[holdsStart].until : nil
    }

    /// Takes one report received at `now`; returns what to deliver: devices whose wait
    /// ended, then this report's device if it is due.
    public mutating func receive(_ report: Advertisement, at now: ContinuousClock.Instant) -> [Advertisement] {
        var out = expire(at: now)
        let key = Key(address: report.address, type: report.addressType)
        let slot: Int
        if let existing = index[key] {
            slot = existing
            entries[slot].advertisement.merge(scanResponse: report)
            touch(slot)
        } else {
            var first = report
            // Its data is the scan response's; an advertisement merged later replaces `data`.
            if first.isScanResponse { first.scanResponseData = first.data }
            slot = insert(Entry(key: key, advertisement: first), evicted: &out)
        }
        if allowDuplicates {
            entries[slot].holdUntil = nil
            out.append(deliver(slot, isUpdate: false))
            return out
        }
        let entry = entries[slot]
        if entry.delivered == nil {
            // Connectability comes from the advertisement: a scan response alone waits for it.
            if entry.advertisement.isScanResponse { return out }
            // Connectable advertisements wait too: Bumble's controller, for one, follows an
            // extended connectable advertisement whose type says "not scannable" with a
            // scan response. Only a device that takes neither is final at once.
            let ad = entry.advertisement
            let complete = ad.scanResponseData != nil || !(ad.isScannable || ad.isConnectable) || !expectsScanResponses
            if complete {
                entries[slot].holdUntil = nil
                out.append(deliver(slot, isUpdate: false))
            } else if entry.holdUntil == nil {
                hold(slot, until: now + scanResponseWait)
                // Bounded like the table: past it the longest held goes out without waiting.
                if holds.count - holdsStart > limit { out += releaseOldestHold() }
            }
        } else if entry.delivered != Self.digest(entry.advertisement) {
            out.append(deliver(slot, isUpdate: true))
        }
        return out
    }

    /// Delivers the held devices whose wait for a scan response has ended by `now`.
    public mutating func expire(at now: ContinuousClock.Instant) -> [Advertisement] {
        var out: [Advertisement] = []
        while let due = nextDeadline, due <= now { out += releaseOldestHold() }
        return out
    }

    // MARK: - Delivery

    /// What counts as a change: everything but the signal strength and the delivery marks.
    static func digest(_ advertisement: Advertisement) -> Int {
        var content = advertisement
        content.rssi = nil
        content.lostBefore = 0
        content.isUpdate = false
        return content.hashValue
    }

    private mutating func deliver(_ slot: Int, isUpdate: Bool) -> Advertisement {
        var out = entries[slot].advertisement
        entries[slot].delivered = Self.digest(out)
        out.isUpdate = isUpdate
        return out
    }

    private mutating func hold(_ slot: Int, until deadline: ContinuousClock.Instant) {
        entries[slot].holdUntil = deadline
        holds.append((entries[slot].key, deadline))
    }

    /// Takes the first hold off the queue, delivering its device if it is still held.
    private mutating func releaseOldestHold() -> [Advertisement] {
        let (key, until) = holds[holdsStart]
        holdsStart += 1
        // Drop the consumed prefix once it is half the array, so the queue stays bounded.
        if holdsStart * 2 >= holds.count {
            holds.removeFirst(holdsStart)
            holdsStart = 0
        }
        guard let slot = index[key], entries[slot].holdUntil == until, entries[slot].delivered == nil else { return [] }
        entries[slot].holdUntil = nil
        return [deliver(slot, isUpdate: false)]
    }

    // MARK: - Least recently seen

    /// Adds a device, forgetting the least recently seen one when full; that one goes to
    /// `evicted` first if it was still held for its scan response, so no discovery is lost.
    private mutating func insert(_ entry: Entry, evicted: inout [Advertisement]) -> Int {
        let slot: Int
        if index.count < limit {
            slot = entries.count
            entries.append(entry)
        } else {
            // Reuse the least recently seen device's place.
            slot = oldest
            if entries[slot].holdUntil != nil && entries[slot].delivered == nil {
                evicted.append(deliver(slot, isUpdate: false))
            }
            unlink(slot)
            index.removeValue(forKey: entries[slot].key)
            entries[slot] = entry
        }
        index[entry.key] = slot
        linkAsNewest(slot)
        return slot
    }

    private mutating func touch(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (entries[slot].newer, entries[slot].older)
        if newer >= 0 { entries[newer].older = older } else { newest = older }
        if older >= 0 { entries[older].newer = newer } else { oldest = newer }
        entries[slot].newer = -1
        entries[slot].older = -1
    }

    private mutating func linkAsNewest(_ slot: Int) {
        entries[slot].newer = -1
        entries[slot].older = newest
        if newest >= 0 { entries[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
