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
    /// (`{"topic": value, ...}` in topic order); their change marks are cleared.
    func takeChanged() -> [(device: String, state: String)] {
        entries.withLock { all in
            var out: [(String, String)] = []
            for (device, entry) in all where entry.changed {
                all[device]?.changed = false
                out.append((device, Self.state(entry.values)))
            }
            return out.sorted { $0.0 < $1.0 }
        }
    }

    /// One device's last values as state JSON.
    func state(of device: String) -> String {
        Self.state(entries.withLock { $0[device]?.values ?? [:] })
    }

    private static func state(_ values: [String: String]) -> String {
        "{" + values.keys.sorted().map { "\(JSONText.quoted($0)): \(values[$0]!)" }.joined(separator: ", ") + "}"
    }
}
