import Foundation
import Synchronization

/// Samples the process's resident set (VmRSS) on a thread of its own until stopped, so a
/// test sees the peak growth while work runs, not only what is left when it ends.
final class ResidentMemoryWatch: Sendable {
    private let baseline = ResidentMemoryWatch.currentKilobytes()
    private let peak = Mutex(0)
    private let running = Mutex(true)
    private let stopped = DispatchSemaphore(value: 0)

    init() {
        Thread.detachNewThread { [self] in
            while running.withLock({ $0 }) {
                let now = Self.currentKilobytes()
                peak.withLock { $0 = max($0, now) }
                usleep(2_000)
            }
            stopped.signal()
        }
    }

    /// Stops sampling and returns the largest VmRSS seen above the one at creation, in MB.
    func stop() -> Double {
        if running.withLock({ let was = $0; $0 = false; return was }) { stopped.wait() }
        let top = max(peak.withLock { $0 }, Self.currentKilobytes())
        return Double(top - baseline) / 1024
    }

    static func currentKilobytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }
}
