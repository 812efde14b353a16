import Synchronization

/// What the subscriber of `gateway.scale.memory` received: a count, the latency of each
/// message (from the peripheral's send time in the value to the delivery here) in a
/// fixed histogram, and each device's sequence, for gaps and duplicates. Fixed size once
/// made, so it adds nothing to the RSS measured after it.
final class DeliveryLog: Sendable {
    /// 10 µs buckets up to 10 s; later ones land in the last.
    static let bucket: UInt64 = 10_000
    static let buckets = 1_000_000

    struct Snapshot {
        var received = 0
        var gaps = 0
        var duplicates = 0
        var inboundDropped = 0
        var unparsed = 0
        var payloadBytes = 0
        var p50 = Double.nan
        var p99 = Double.nan
        var maximum = Double.nan
    }

    private struct State {
        var histogram: [UInt32]
        var lastSequence: [UInt32]
        /// The counts as the snapshot reports them; ``snapshot()`` adds the percentiles.
        var tally = Snapshot()
        var maximum: UInt64 = 0
        var lastArrival: ContinuousClock.Instant?
    }

    private let state: Mutex<State>
    private let total = Atomic<Int>(0)
    private let devices: Int

    init(devices: Int) {
        self.devices = devices
        state = Mutex(State(histogram: [UInt32](repeating: 0, count: Self.buckets),
                            lastSequence: [UInt32](repeating: 0, count: devices)))
    }

    /// Messages received since the last reset.
    var count: Int { total.load(ordering: .relaxed) }

    var lastArrival: ContinuousClock.Instant? { state.withLock { $0.lastArrival } }

    func reset() {
        state.withLock { s in
            for i in s.histogram.indices { s.histogram[i] = 0 }
            for i in s.lastSequence.indices { s.lastSequence[i] = 0 }
            s.tally = Snapshot()
            s.maximum = 0
            s.lastArrival = nil
        }
        total.store(0, ordering: .relaxed)
    }

    func droppedInbound(_ count: Int) { state.withLock { $0.tally.inboundDropped += count } }

    /// One delivered payload: JSON whose `"hex": "…"` member is the 16-byte value.
    func received(_ payload: [UInt8]) {
        let now = monotonicNanoseconds()
        guard let value = Self.value(in: payload) else {
            state.withLock { $0.tally.unparsed += 1 }
            return
        }
        let device = Int(value.device), sequence = value.sequence
        let latency = now >= value.time ? now - value.time : 0
        let arrival = ContinuousClock.now
        state.withLock { s in
            guard device < s.lastSequence.count else {
                s.tally.unparsed += 1
                return
            }
            let last = s.lastSequence[device]
            if sequence <= last {
                s.tally.duplicates += 1
                return
            }
            if sequence != last &+ 1 { s.tally.gaps += Int(sequence - last - 1) }
            s.lastSequence[device] = sequence
            s.histogram[min(Self.buckets - 1, Int(latency / Self.bucket))] += 1
            s.maximum = max(s.maximum, latency)
            s.tally.received += 1
            s.tally.payloadBytes = payload.count
            s.lastArrival = arrival
        }
        total.add(1, ordering: .relaxed)
    }

    func snapshot() -> Snapshot {
        state.withLock { s in
            var out = s.tally
            guard out.received > 0 else { return out }
            func percentile(_ p: Double) -> Double {
                let rank = Int((Double(out.received) * p).rounded(.up))
                var seen = 0
                for (index, n) in s.histogram.enumerated() {
                    seen += Int(n)
                    if seen >= rank { return Double(UInt64(index + 1) * Self.bucket) / 1e6 }
                }
                return Double(s.maximum) / 1e6
            }
            out.p50 = percentile(0.5)
            out.p99 = percentile(0.99)
            out.maximum = Double(s.maximum) / 1e6
            return out
        }
    }

    /// The value of the first `"hex": "` member: 32 hex digits.
    static func value(in payload: [UInt8]) -> (device: UInt32, sequence: UInt32, time: UInt64)? {
        let marker = Array("\"hex\": \"".utf8)
        guard payload.count >= marker.count + 32 else { return nil }
        var start = -1
        search: for i in 0...(payload.count - marker.count - 32) {
            for j in 0..<marker.count where payload[i + j] != marker[j] { continue search }
            start = i + marker.count
            break
        }
        guard start >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        for k in 0..<16 {
            guard let high = nibble(payload[start + 2 * k]), let low = nibble(payload[start + 2 * k + 1]) else { return nil }
            bytes[k] = high << 4 | low
        }
        func field(_ offset: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
        }
        return (UInt32(truncatingIfNeeded: field(0, 4)), UInt32(truncatingIfNeeded: field(4, 4)), field(8, 8))
    }

    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
