import Attune
import BumbleTestSupport
import Foundation

/// `smp.pairing.bumble`: how long our central's LE Secure Connections Just Works pairing
/// takes against Bumble's peripheral, over the userland host on H4/TCP
/// (Scripts/interop/lab.py). Each cycle connects, calls `Peripheral.pair()`, and ends when
/// Bumble's peripheral reports the pairing done (its `paired` event: it holds the keys our
/// central distributes last); then the link closes and the bond is forgotten, so the next
/// cycle pairs again.
///
/// The anchor, same run, same lab: Bumble's central pairing with a second Bumble
/// peripheral (`bench-pair`), from its `pair()` to that responder's own pairing event.
/// Both figures are on CLOCK_MONOTONIC and end at the same point of the procedure. The
/// two take turns, so the machine's load falls on both alike; `first_ms` is our first
/// pairing in the process, with libcrypto's first use in it.
///
/// It needs Bumble's venv (Scripts/interop/setup.sh), so it runs only when `--filter`
/// names it: `attune-bench --filter smp.pairing`.
enum PairingBenchmark {
    static let name = "smp.pairing.bumble"

    static func all(filter: String?, quick: Bool) async -> [BenchmarkResult] {
        guard let filter, name.contains(filter), filter.hasPrefix("smp.pairing") else { return [] }
        do {
            return [try await measure(pairings: quick ? 5 : 15)]
        } catch {
            return [BenchmarkResult(name: name, opsPerSecond: .nan, allocationsPerOperation: .nan,
                                    extra: [("error", .string("\(error)"))])]
        }
    }

    static func measure(pairings: Int) async throws -> BenchmarkResult {
        // Device 0 pairs with us; device 2, Bumble's central, pairs with device 1.
        let lab = try PairingLab(arguments: ["--role", "peripheral,peripheral,central", "--devices", "3",
                                             "--protected", "--readvertise", "--lifetime", "600"])
        defer { lab.stop() }
        let ready = try await lab.waitFor("ready", within: .seconds(900))
        guard let port = (ready["ports"] as? [NSNumber])?.first?.intValue,
              let devices = ready["devices"] as? [[String: Any]], devices.count == 3,
              let ourPeer = devices[0]["address"] as? String, let bumblePeer = devices[1]["address"] as? String,
              let address = BluetoothAddress(ourPeer)
        else { throw PairingLab.Failure(description: "unexpected ready line: \(ready)") }

        let central = CentralManager(transport: .h4(.tcp(host: "127.0.0.1", port: UInt16(port))))
        for await state in central.stateUpdates where state == .poweredOn || state == .unsupported { break }
        guard central.state == .poweredOn else { throw PairingLab.Failure(description: "\(central.status)") }
        let peripheral = central.peripheral(address: address, type: .random)
        // Bumble pays for its first pairing in a process (its crypto's first use, each
        // device's key pair): once on each peripheral before anything is timed, so that
        // cost lands in neither figure. Ours is cold on purpose, and reported apart.
        _ = try await lab.run("bench-pair \(ourPeer) 1", within: .seconds(60))
        _ = try await lab.run("bench-pair \(bumblePeer) 1", within: .seconds(60))
        var ours: [Double] = [], encrypted: [Double] = [], anchor: [Double] = []
        // One of ours, then one of Bumble's: the machine's load moves both alike.
        for _ in 0..<pairings {
            try await central.connect(peripheral, timeout: .seconds(30), discoverDatabase: false)
            let before = lab.lineCount
            let started = PairingLab.monotonicNow()
            try await peripheral.pair()
            encrypted.append((PairingLab.monotonicNow() - started) * 1000)
            let paired = try await lab.waitFor("paired", after: before, within: .seconds(30))
            guard let end = (paired["t"] as? NSNumber)?.doubleValue else {
                throw PairingLab.Failure(description: "no time in \(paired)")
            }
            ours.append((end - started) * 1000)
            await central.cancelConnection(peripheral)
            _ = try await lab.waitFor("disconnected", after: before, within: .seconds(30))
            try await central.removeBond(for: peripheral)

            let result = try await lab.run("bench-pair \(bumblePeer) 1", within: .seconds(60))
            guard let sample = (result["samples_ms"] as? [NSNumber])?.first?.doubleValue else {
                throw PairingLab.Failure(description: "bench-pair: \(result)")
            }
            anchor.append(sample)
        }
        let median = Self.median(ours), anchorMedian = Self.median(anchor)
        return BenchmarkResult(
            name: name, opsPerSecond: 1000 / median, allocationsPerOperation: .nan,
            extra: [("unit", .string("pairings")), ("pairings", .int(ours.count)),
                    ("median_ms", .double(round1(median))), ("first_ms", .double(round1(ours.first ?? .nan))),
                    ("min_ms", .double(round1(ours.min() ?? .nan))),
                    ("max_ms", .double(round1(ours.max() ?? .nan))),
                    ("encrypted_median_ms", .double(round1(Self.median(encrypted)))),
                    ("anchor_bumble_median_ms", .double(round1(anchorMedian))),
                    ("anchor_bumble_min_ms", .double(round1(anchor.min() ?? .nan))),
                    ("anchor_bumble_max_ms", .double(round1(anchor.max() ?? .nan))),
                    ("ratio_to_anchor", .double((median / anchorMedian * 100).rounded() / 100))])
    }

    static func median(_ samples: [Double]) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

/// One run of `Scripts/interop/lab.py` on the tests' launcher: its JSON lines, and
/// commands on its stdin.
final class PairingLab: Sendable {
    typealias Failure = BumbleLabProcess<String>.Failure

    /// CLOCK_MONOTONIC in seconds: the clock of the lab's `t` (Python's time.monotonic()).
    static func monotonicNow() -> Double { labMonotonicNow() }

    private let lab: BumbleLabProcess<String>

    init(arguments: [String]) throws {
        lab = try BumbleLabProcess(script: "lab.py", arguments: arguments) { $0 }
    }

    var lineCount: Int { lab.eventCount }

    /// The first event named `name` from line `start` on, as its JSON object.
    func waitFor(_ name: String, after start: Int = 0, within timeout: Duration) async throws -> [String: Any] {
        try await lab.waitFor("'\(name)'", within: timeout) { lines in
            for line in lines.dropFirst(start) {
                if let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                   object["event"] as? String == name {
                    return object
                }
            }
            return nil
        }
    }

    /// Runs one command and returns its result line.
    func run(_ command: String, within timeout: Duration) async throws -> [String: Any] {
        let before = lineCount
        lab.send(command)
        let result = try await waitFor("result", after: before, within: timeout)
        guard result["ok"] as? Bool == true else { throw Failure(description: "\(command): \(result)") }
        return result
    }

    func stop() { lab.stop() }
}
