import Attune
import Synchronization

/// The controller input the userland host dropped during the command, said once on
/// stderr as the process ends: a hostile or broken controller (completions for unknown
/// handles, stray Command Completes, malformed events) shows as counts, not as silence
/// or memory. Nothing is said when nothing was dropped.
enum ControllerWarningReport {
    private static let centrals = Mutex<[CentralManager]>([])

    static func register(_ central: CentralManager) {
        centrals.withLock { $0.append(central) }
    }

    /// One line per manager with warnings, e.g. `controller warnings: 1200 (Number Of
    /// Completed Packets mismatch 400, unexpected command completion 400, malformed event 400)`.
    static func print() {
        for central in centrals.withLock({ $0 }) {
            if let line = line(central.controllerWarnings) { Output.status(line) }
        }
    }

    static func line(_ counts: HostWarningCounts) -> String? {
        guard counts.total > 0 else { return nil }
        let kinds = HostWarning.Kind.allCases.filter { counts[$0] > 0 }.map { "\($0) \(counts[$0])" }
        return "controller warnings: \(counts.total) (\(kinds.joined(separator: ", ")))"
    }
}
