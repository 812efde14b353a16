import Attune
import Foundation
import Synchronization

/// A misbehaving demo peripheral for `attune conformance --against … --transport memory`,
/// set by the environment variable `ATTUNE_CONFORMANCE_DEMO_FAULT` (for tests of the CLI,
/// which run it as a process): comma-separated `drop-link-at=N` ends the link when the
/// tester's Nth ATT PDU crosses the radio (once), and `delay-ms=M` holds each of the
/// tester's PDUs M ms before the demo sees it, so a run takes long enough to interrupt.
struct ConformanceDemoFault: Sendable {
    static let variable = "ATTUNE_CONFORMANCE_DEMO_FAULT"

    var dropLinkAt: Int?
    var delay: Duration?

    /// The fault the environment asks for; nil when the variable is unset or empty.
    static func fromEnvironment() throws(CLIError) -> ConformanceDemoFault? {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
        var fault = ConformanceDemoFault()
        for item in text.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let n = Int(pair[1]), n > 0 else {
                throw .usage("\(variable): expected drop-link-at=N or delay-ms=M, got \(item)")
            }
            switch pair[0] {
            case "drop-link-at": fault.dropLinkAt = n
            case "delay-ms": fault.delay = .milliseconds(n)
            default: throw .usage("\(variable): unknown fault \(pair[0]) (drop-link-at=N, delay-ms=M)")
            }
        }
        return fault
    }

    /// Watches the demo's radio and misbehaves as set. The tap runs as each PDU is sent,
    /// so a delay there holds that PDU; the link is dropped off the tap's context.
    func install(on radio: MemoryRadio) {
        let count = Mutex(0)
        radio.setTap { event in
            guard case .pdu(_, fromCentral: true, _) = event else { return }
            let n = count.withLock { c -> Int in c += 1; return c }
            if let delay { Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds)) }
            if n == dropLinkAt { Task { radio.dropLinks() } }
        }
    }
}
