import Glibc

/// Prints one line per check, `PASS name: detail` or `FAIL name: detail`,
/// and remembers whether anything failed.
final class ProbeLog {
    private(set) var failures = 0

    func pass(_ name: String, _ detail: String = "") { line("PASS", name, detail) }

    func fail(_ name: String, _ detail: String) {
        failures += 1
        line("FAIL", name, detail)
    }

    func info(_ text: String) { line("INFO", text, "") }

    private func line(_ tag: String, _ name: String, _ detail: String) {
        // write(2) rather than print: stdout is a file in the VM and must not
        // sit in a buffer if the kernel falls over.
        let text = (detail.isEmpty ? "\(tag) \(name)" : "\(tag) \(name): \(detail)") + "\n"
        var bytes = Array(text.utf8)
        _ = write(1, &bytes, bytes.count)
    }
}
