import ATT
import ATTPresentation
import Capture
import Foundation
import HCI

/// Capture decoding throughput: a synthetic btsnoop file through the whole pipeline
/// (records → ACL reassembly → L2CAP → ATT codec), against `tshark -r` on the same file
/// in the same run.
///
/// The file is kept at $ATTUNE_BENCH_CAPTURE (default /tmp/attune-bench-capture.btsnoop)
/// and regenerated when missing, so it can be inspected or fed to other tools.
enum CaptureBenchmarks {
    static let pduCount = 250_000

    static var all: [Benchmark] {
        [.custom("capture.decode.btsnoop") { measureDecode() }]
    }

    static func capturePath() -> String {
        ProcessInfo.processInfo.environment["ATTUNE_BENCH_CAPTURE"] ?? "/tmp/attune-bench-capture.btsnoop"
    }

    static func measureDecode() -> BenchmarkResult {
        let path = capturePath()
        let expected = (pduCount + 7) / 8 * 8
        if (try? countPDUs(path)) != expected {
            do {
                try SyntheticCapture.write(path: path, pdus: pduCount)
            } catch {
                return BenchmarkResult(name: "", opsPerSecond: 0, allocationsPerOperation: 0,
                                       extra: [("error", .string("cannot write \(path): \(error)"))])
            }
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var best = Double.infinity
        var pdus = 0
        var allocations: UInt64 = 0
        for round in 0..<3 {
            var count = 0
            let run = {
                count = (try? countPDUs(path)) ?? -1
            }
            if round == 0 {
                allocations = countAllocations(run)
            } else {
                best = min(best, BenchmarkRunner.time(run))
            }
            pdus = count
        }
        let megabytes = Double(size) / 1e6
        var extra: [(String, JSONValue)] = [
            ("file", .string(path)), ("file_mb", .double((megabytes * 100).rounded() / 100)),
            ("att_pdus", .int(pdus)), ("mb_per_sec", .double((megabytes / best * 10).rounded() / 10)),
        ]
        if let tshark = timeTShark(path) {
            let ratio = tshark / best
            extra += [("tshark_seconds", .double((tshark * 100).rounded() / 100)),
                      ("tshark_mb_per_sec", .double((megabytes / tshark * 100).rounded() / 100)),
                      ("tshark_att_pdus_per_sec", .double((Double(pdus) / tshark).rounded())),
                      ("ratio_vs_tshark", .double((ratio * 10).rounded() / 10))]
        } else {
            extra.append(("tshark", .string("not installed")))
        }
        return BenchmarkResult(name: "", opsPerSecond: Double(pdus) / best,
                               allocationsPerOperation: Double(allocations) / Double(max(pdus, 1)), extra: extra)
    }

    /// Decodes every ATT PDU in the file and touches its fields, as a consumer would.
    static func countPDUs(_ path: String) throws -> Int {
        var extractor = try ATTPDUExtractor(path: path)
        var count = 0
        var checksum = 0
        while let captured = try extractor.next() {
            count &+= 1
            if case let .success(pdu) = captured.pdu { checksum &+= ATTBenchmarks.consume(pdu) }
            checksum &+= Int(captured.frame.connectionHandle)
        }
        blackHole(checksum)
        return count
    }

    /// Seconds tshark takes to read and dissect the file (output discarded), or nil.
    static func timeTShark(_ path: String) -> Double? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tshark") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        process.arguments = ["-r", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        var ok = false
        let seconds = BenchmarkRunner.time {
            do {
                try process.run()
                process.waitUntilExit()
                ok = process.terminationStatus == 0
            } catch {}
        }
        return ok ? seconds : nil
    }
}
