import BluetoothCore
import Synchronization

/// When each subscribed value arrived, kept by the notification tasks (no hop through the
/// gateway actor on the hot path) and handed to the subscription watchdog once a second.
/// Bounded: per subscription only the latest ``capacity`` times wait; older ones in a
/// burst are not needed to learn an interval or to see a silence, and how many were
/// passed over is counted.
final class NotificationArrivals: Sendable {
    struct Key: Hashable, Sendable {
        var device: String
        var topic: String
    }

    static let capacity = 32
    private let state = Mutex<(times: [Key: [MonotonicTime]], passedOver: Int)>(([:], 0))

    func arrived(_ key: Key, at time: MonotonicTime) {
        state.withLock { s in
            s.times[key, default: []].append(time)
            if s.times[key]!.count > Self.capacity {
                s.times[key]!.removeFirst()
                s.passedOver += 1
            }
        }
    }

    /// Every waiting time, in arrival order per subscription; the store empties.
    func take() -> [(Key, [MonotonicTime])] {
        state.withLock { s in
            defer { s.times.removeAll(keepingCapacity: true) }
            return s.times.sorted { ($0.key.device, $0.key.topic) < ($1.key.device, $1.key.topic) }.map { ($0.key, $0.value) }
        }
    }

    /// Arrival times dropped from a burst before the watchdog saw them.
    var passedOver: Int { state.withLock { $0.passedOver } }
}
