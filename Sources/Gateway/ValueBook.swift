import Synchronization

/// The last value of every topic of every device, for the retained `state` topic and for
/// `--explain`. Written from the notification tasks directly (no hop through the gateway
/// actor on the hot path), read once a second by the housekeeping that publishes what
/// changed.
final class ValueBook: Sendable {
    private struct Entry {
        var values: [String: String] = [:]
        var changed = false
    }
    private let entries = Mutex<[String: Entry]>([:])

    /// Keeps `json` as the latest value of `topic` on `device`.
    func record(device: String, topic: String, json: String) {
        entries.withLock { all in
            all[device, default: Entry()].values[topic] = json
            all[device]?.changed = true
        }
    }

    /// Devices whose values changed since the last call, each with its state JSON
    /// (`{"topic": value, ...}` in topic order); their change marks are cleared. With
    /// `slice`, only the devices of that slice of `slices` (by a stable hash of the name),
    /// so the states can be published spread over a second rather than in one burst.
    ///
    /// Only the values are copied under the lock: the notification tasks record into it
    /// on every value, and building a thousand JSON objects there would hold them all up.
    func takeChanged(slice: Int = 0, of slices: Int = 1) -> [(device: String, state: String)] {
        let taken = entries.withLock { all -> [(String, [String: String])] in
            var out: [(String, [String: String])] = []
            for (device, entry) in all where entry.changed && Self.slice(of: device, slices) == slice {
                all[device]?.changed = false
                out.append((device, entry.values))
            }
            return out
        }
        return taken.sorted { $0.0 < $1.0 }.map { ($0.0, Self.state($0.1)) }
    }

    /// One device's last values as state JSON.
    func state(of device: String) -> String {
        Self.state(entries.withLock { $0[device]?.values ?? [:] })
    }

    /// Which of `slices` a device's state goes out in: FNV-1a of its name, stable across
    /// runs (Swift's `hashValue` is seeded per process).
    static func slice(of device: String, _ slices: Int) -> Int {
        guard slices > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(slices))
    }

    private static func state(_ values: [String: String]) -> String {
        "{" + values.sorted { $0.key < $1.key }.map { "\(JSONText.quoted($0.key)): \($0.value)" }.joined(separator: ", ") + "}"
    }
}
