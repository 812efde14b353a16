import ATT
import ATTPresentation
import Foundation

/// Figures from other stacks, measured in the same run as ours so that ratios compare
/// like with like on a shared, loaded machine.
enum AnchorBenchmarks {
    static var all: [Benchmark] {
        [.custom("att.anchor.bumble_decode", bumbleDecode)]
    }

    /// Bumble's ATT decoder (Python) on the same six PDUs as `att.decode.*`. Needs the
    /// interop venv (`Scripts/setup.sh` makes it); without it the figure is reported as
    /// skipped, with the reason.
    static func bumbleDecode() -> BenchmarkResult {
        let python = "Scripts/interop/.venv/bin/python"
        let script = "Scripts/bench/bumble_att.py"
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script) else {
            return BenchmarkResult(name: "", opsPerSecond: 0, allocationsPerOperation: 0,
                                   extra: [("skipped", .string("no Bumble venv: run Scripts/setup.sh from the project folder"))])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                  let object = try JSONSerialization.jsonObject(with: data) as? [String: [String: Double]],
                  let decode = object["decode"], !decode.isEmpty
            else { throw CocoaError(.fileReadCorruptFile) }
            let mean = decode.values.reduce(0, +) / Double(decode.count)
            let perPDU = decode.keys.sorted().map { ($0, JSONValue.double(decode[$0]!.rounded())) }
            return BenchmarkResult(name: "", opsPerSecond: mean, allocationsPerOperation: .nan,
                                   extra: [("unit", .string("mean PDUs/s over the six att.decode PDUs")), ("per_pdu", .object(perPDU))])
        } catch {
            return BenchmarkResult(name: "", opsPerSecond: 0, allocationsPerOperation: 0,
                                   extra: [("skipped", .string("Bumble anchor failed: \(error)"))])
        }
    }
}
