import ATTPresentation
import Foundation
import Glibc

/// `attune replay` streaming a long capture: ATT PDUs per second and the replay's peak
/// RSS, with `attune decode --summary` on the same file in the same run as the anchor.
/// Both run as child processes of the `attune` built beside this benchmark, so that each
/// peak RSS (VmHWM) is the command's own.
///
/// Two files of 250,000 PDUs: the capture.decode file (one connection, so the whole
/// capture is one conversation) and the same traffic over 2,500 connections one after
/// another. A third of 1,000,000 PDUs on one connection (about 90 MB; replay once held
/// such a connection whole, at 884 MB) shows that replay reads a conversation in pieces:
/// its peak RSS, as server and as client, must stay under 64 MB
/// (`one_connection_1m_under_64mb`), with `decode --summary`'s on the same file beside
/// it as the anchor. The synthetic traffic
/// reads characteristic declarations as if they were values, so no database can be
/// rebuilt from it: replay as server serves a one-service database given to it (the
/// reads diverge, which costs what a divergence costs), and replay as client needs none.
///
/// Unless `--quick`, a fourth file of 12,000,000 PDUs over 120,000 connections (about
/// 1 GB) shows that replay's memory is bounded whatever the file's length: its peak RSS
/// must stay under 64 MB (`one_gigabyte_under_64mb`). The large files are deleted after
/// the run.
enum ReplayBenchmarks {
    static var all: [Benchmark] {
        [.custom("replay.stream") { measure() }]
    }

    static func measure() -> BenchmarkResult {
        let attune = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("attune").path
        guard FileManager.default.isExecutableFile(atPath: attune) else {
            return BenchmarkResult(name: "", opsPerSecond: 0, allocationsPerOperation: 0,
                                   extra: [("error", .string("no attune beside attune-bench: build it (swift build -c release)"))])
        }
        let single = CaptureBenchmarks.capturePath()
        let several = single + ".connections.btsnoop"
        let database = single + ".db.json"
        let json = #"{"attributes": [{"handle": 1, "type": "2800", "value_hex": "0d18", "permission_bits": 1, "group_end": 1}]}"#
        guard FileManager.default.createFile(atPath: database, contents: Data(json.utf8)) else {
            return BenchmarkResult(name: "", opsPerSecond: 0, allocationsPerOperation: 0,
                                   extra: [("error", .string("cannot write \(database)"))])
        }
        var extra: [(String, JSONValue)] = []
        var rate = 0.0
        let million = single + ".1m.btsnoop"
        defer { unlink(million) }
        var files = [("one_connection", single, CaptureBenchmarks.pduCount, 1),
                     ("connections_2500", several, CaptureBenchmarks.pduCount, 2_500),
                     ("one_connection_1m", million, 1_000_000, 1)]
        let gigabyte = single + ".1gb.btsnoop"
        if !CommandLine.arguments.contains("--quick") { files.append(("one_gigabyte", gigabyte, 12_000_000, 120_000)) }
        defer { unlink(gigabyte) }
        for (label, path, count, connections) in files {
            let written: Int
            do {
                written = try SyntheticCapture.write(path: path, pdus: count, connections: connections)
            } catch {
                extra.append(("\(label)_error", .string("cannot write \(path): \(error)")))
                continue
            }
            let pdus = Double(written)
            guard let server = run(attune, ["replay", path, "--as", "server", "--database", database]),
                  let client = run(attune, ["replay", path, "--as", "client"]),
                  let decode = run(attune, ["decode", path, "--summary"])
            else {
                extra.append(("\(label)_error", .string("attune replay or decode failed on \(path)")))
                continue
            }
            if label == "connections_2500" { rate = pdus / server.seconds }
            if label == "one_connection_1m" {
                let peak = max(server.peakKilobytes, client.peakKilobytes)
                extra += [("one_connection_1m_under_64mb", .bool(peak < 64 * 1024))]
            }
            if label == "one_gigabyte" {
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                let peak = max(server.peakKilobytes, client.peakKilobytes)
                extra += [("one_gigabyte_file_mb", .double(Double(size / 100_000) / 10)),
                          ("one_gigabyte_under_64mb", .bool(peak < 64 * 1024))]
            }
            func megabytes(_ kilobytes: Int) -> JSONValue { .double((Double(kilobytes) / 102.4).rounded() / 10) }
            extra += [("\(label)_server_pdus_per_sec", .double((pdus / server.seconds).rounded())),
                      ("\(label)_server_peak_rss_mb", megabytes(server.peakKilobytes)),
                      ("\(label)_client_pdus_per_sec", .double((pdus / client.seconds).rounded())),
                      ("\(label)_client_peak_rss_mb", megabytes(client.peakKilobytes)),
                      ("\(label)_decode_pdus_per_sec", .double((pdus / decode.seconds).rounded())),
                      ("\(label)_decode_peak_rss_mb", megabytes(decode.peakKilobytes))]
        }
        return BenchmarkResult(name: "", opsPerSecond: rate, allocationsPerOperation: 0, extra: extra)
    }

    /// Runs `attune ARGS` with its output discarded; its wall time and peak RSS, or nil
    /// when it failed.
    static func run(_ executable: String, _ arguments: [String]) -> (seconds: Double, peakKilobytes: Int)? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = [executable] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for a in cArguments { free(a) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, executable, &actions, nil, &cArguments, environ) == 0 else { return nil }
        // The peak is VmHWM, polled while the command runs: wait4's ru_maxrss would
        // include this process's own high-water mark, inherited through exec.
        var status: Int32 = 0
        var peak = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0, errno != EINTR { return nil }
            peak = max(peak, highWater(pid))
            usleep(2_000)
        }
        let elapsed = ContinuousClock.now - start
        guard status == 0 else { return nil }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds, peak)
    }

    /// VmHWM of a running process, in kB (0 once it has exited).
    static func highWater(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
