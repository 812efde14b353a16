import BluetoothCore
import ControllerTestSupport
import Foundation
import MQTTTestSupport
import Testing

/// The CLI over the userland host (H4 on TCP) against Bumble: each case starts
/// Scripts/interop/lab.py (an emulated controller for us, a Bumble GATT peripheral on the
/// same virtual link) and runs one `attune` command with `--transport tcp:127.0.0.1:PORT`.
/// A fresh lab per case: the emulated peripheral takes one connection, and an emulated
/// controller keeps its state across HCI Reset. Skipped only when python3 is missing.
@Suite("attune over H4 against Bumble", .serialized, .enabled(if: BumbleLab.pythonAvailable, "python3 is missing"))
struct BumbleCLITests {
    @Test(.timeLimit(.minutes(20)))
    func stateIsPoweredOn() async throws {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        let run = try await AttuneProcess.run(["state", "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout == "\(lab.transport): poweredOn\n")
    }

    @Test(.timeLimit(.minutes(20)))
    func discoverFindsBumblesDatabase() async throws {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        let run = try await AttuneProcess.run(["discover", lab.address, "--random", "--json", "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let services = try #require(run.stdout.jsonObject?["services"] as? [[String: Any]])
        let values = services.flatMap { ($0["characteristics"] as? [[String: Any]]) ?? [] }.compactMap { $0["value"] as? Int }
        for (name, handle) in lab.handles { #expect(values.contains(handle), "\(name) at \(handle) discovered") }
    }

    @Test(.timeLimit(.minutes(20)))
    func longReadMatchesBumblesValue() async throws {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        let handle = try #require(lab.handles["long_read"])
        let run = try await AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random", "--json",
                                         "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let expected = hexString((0..<300).map { UInt8(($0 * 7 + 3) & 0xFF) })
        #expect(run.stdout.jsonObject?["value"] as? String == expected)
    }

    @Test(.timeLimit(.minutes(20)))
    func subscribeReceivesBumblesNotifications() async throws {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        let handle = try #require(lab.handles["notify"])
        let run = try await AttuneProcess.run(["subscribe", lab.address, String(format: "0x%04x", handle), "--count", "3", "--random",
                                         "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdoutLines.count == 3)
    }

    /// Bumble's peripheral answers our active scan with a scan response after every
    /// advertisement: without --duplicates it prints once, its response merged in; with
    /// --duplicates, once per report.
    @Test(.timeLimit(.minutes(20)))
    func scanPrintsBumbleOnceUnlessDuplicates() async throws {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        func sightings(_ flags: [String]) async throws -> [[String: Any]] {
            let run = try await AttuneProcess.run(["scan", "--json", "--timeout", "2", "--transport", lab.transport] + flags,
                                                  timeout: 30)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            return run.stdoutLines.compactMap(\.jsonObject).filter { $0["address"] as? String == lab.address }
        }
        let once = try await sightings([])
        #expect(once.count == 1, "\(once)")
        #expect(once.first?["name"] as? String == "AttuneBumble0")
        #expect(once.first?["update"] as? Bool == false)
        let every = try await sightings(["--duplicates"])
        #expect(every.count > 2, "a report every 20 ms advertising interval: \(every.count)")
    }

    /// Bumble's GATT client runs the interop cells against `attune serve` serving the
    /// interop database (Fixtures/databases/interop.json). The notify and indicate cells
    /// want values pushed on subscribe and the callback cell an application error: a
    /// served JSON database does neither, so those three are not expected to pass.
    @Test(.timeLimit(.minutes(20)))
    func serveIsJudgedByBumblesClient() async throws {
        let lab = try await BumbleLab.start(role: "central")
        defer { lab.stop() }
        let transport = lab.transport
        let (cells, printed) = try await offPool { () throws -> ([String: Bool], [String]) in
            let serve = Process()
            serve.executableURL = AttuneProcess.executable
            // A short name: with the 128-bit service UUID it still fits the advertisement,
            // where Bumble's connect-by-name looks for it.
            serve.arguments = ["serve", "Fixtures/databases/interop.json", "--name", "AS", "--seconds", "60", "--json",
                               "--transport", transport]
            serve.currentDirectoryURL = AttuneProcess.packageRoot
            serve.environment = AttuneProcess.privateStoreEnvironment()
            let events = Pipe()
            serve.standardOutput = events
            let status = Pipe()
            serve.standardError = status
            try serve.run()
            // Judged once serve says it serves: its "serving …" line follows startAdvertising.
            // (A serve that ends first leaves the judge to say what is missing.)
            let said = status.fileHandleForReading
            var text = ""
            while !text.contains("serving ") {
                let chunk = said.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            Thread.detachNewThread { _ = said.readDataToEndOfFile() }
            let result = lab.command("judge AS", until: "result", timeout: 90)
            serve.terminate()
            serve.waitUntilExit()
            let printed = String(decoding: events.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let cells = (result?["cells"] as? [String: [String: Any]])?.mapValues { $0["ok"] as? Bool == true } ?? [:]
            return (cells, printed.split(separator: "\n").map(String.init))
        }
        #expect(!cells.isEmpty, "no verdict from the judge")
        for name in ["connect", "mtu", "discovery", "read", "long_read", "read_by_uuid", "write", "long_write",
                     "write_without_response", "disconnect"] {
            #expect(cells[name] == true, "cell \(name) did not pass")
        }
        let lines = printed.compactMap(\.jsonObject)
        #expect(lines.contains { $0["event"] as? String == "read" && $0["value"] as? String == "617474756e652d62792d75756964" },
                "serve printed the read of \"attune-by-uuid\"")
        #expect(lines.contains { $0["event"] as? String == "write" && $0["response"] as? Bool == false },
                "serve printed the write without response")
    }

    @Test(.timeLimit(.minutes(20)))
    func longWriteIsAccepted() async throws {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        let handle = try #require(lab.handles["long_write"])
        let run = try await AttuneProcess.run(["write", lab.address, String(format: "0x%04x", handle), String(repeating: "5a", count: 400),
                                         "--long", "--random", "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.hasPrefix("wrote 400 bytes"))
    }
}

/// One run of Scripts/interop/lab.py, until ``stop()`` closes its stdin.
/// Used by one test at a time; the blocking parts run off the concurrency pool.
final class BumbleLab: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    let port: Int
    let address: String
    let handles: [String: Int]
    /// Every Bumble device's address, by index.
    let addresses: [String]
    var transport: String { "tcp:127.0.0.1:\(port)" }

    static var interop: URL { AttuneProcess.packageRoot.appendingPathComponent("Scripts/interop") }

    static var pythonAvailable: Bool {
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") } ?? false
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    let output = Pipe()
    private var pending = Data()
    /// Events read while waiting for another, in order.
    private var seen: [[String: Any]] = []

    /// Starts a lab without blocking the concurrency pool.
    static func start(role: String = "peripheral", devices: Int = 1, arguments: [String] = []) async throws -> BumbleLab {
        try await offPool { try BumbleLab(role: role, devices: devices, arguments: arguments) }
    }

    /// - Parameter role: `peripheral` (the interop database) or `central` (the judge).
    /// - Parameter arguments: more lab.py options (`--protected`, `--readvertise`, `--protected-auth`, `--passkey N`…).
    init(role: String = "peripheral", devices: Int = 1, arguments: [String] = []) throws {
        // Scripts/setup.sh made the venv; a missing one fails here, saying to run it.
        try BumbleVenv.check()
        process.executableURL = Self.interop.appendingPathComponent(".venv/bin/python")
        process.arguments = [Self.interop.appendingPathComponent("lab.py").path, "--role", role, "--lifetime", String(hangGuard.components.seconds),
                             "--devices", String(devices)] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is `ready`, with the port, the peripheral's address and its handles.
        // It comes once the labs started before this one have ended (lab.py runs one lab
        // at a time), so the wait is long; it is a wait for the line, not a delay.
        let line = Self.nextLine(output, &pending, timeout: 900) ?? ""
        guard let ready = line.jsonObject, ready["event"] as? String == "ready",
              let port = (ready["ports"] as? [Int])?.first,
              let address = (ready["devices"] as? [[String: Any]])?.first?["address"] as? String else {
            process.terminate()
            throw Failure(description: "lab.py did not get ready: \(line)")
        }
        // A judge (central) lab has no database, so no handles.
        let handles = (ready["handles"] as? [[String: Int]])?.first ?? [:]
        (self.port, self.address, self.handles) = (port, address, handles)
        addresses = (ready["devices"] as? [[String: Any]])?.compactMap { $0["address"] as? String } ?? []
    }

    /// Sends one stdin command and returns the first JSON line with `event` == `until`.
    func command(_ text: String, until event: String, timeout: Double) -> [String: Any]? {
        input.fileHandleForWriting.write(Data((text + "\n").utf8))
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, let line = Self.nextLine(output, &pending, timeout: deadline.timeIntervalSinceNow) {
            guard let object = line.jsonObject else { continue }
            if object["event"] as? String == event { return object }
            seen.append(object)
        }
        return nil
    }

    /// The first event named `event` that `matches`, from those already read past
    /// (kept by ``command(_:until:timeout:)``) or from the ones still to come.
    func waitFor(_ event: String, timeout: Double, where matches: ([String: Any]) -> Bool) -> [String: Any]? {
        if let index = seen.firstIndex(where: { $0["event"] as? String == event && matches($0) }) {
            return seen.remove(at: index)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, let line = Self.nextLine(output, &pending, timeout: deadline.timeIntervalSinceNow) {
            guard let object = line.jsonObject else { continue }
            if object["event"] as? String == event, matches(object) { return object }
            seen.append(object)
        }
        return nil
    }

    private static func nextLine(_ pipe: Pipe, _ pending: inout Data, timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while !pending.contains(0x0A) {
            // availableData blocks until the lab writes: wait for input with the time left,
            // so a lab that never sends the event ends the wait at its timeout, not its lifetime.
            var ready = pollfd(fd: pipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let left = deadline.timeIntervalSinceNow
            guard left > 0, poll(&ready, 1, Int32(min(left * 1000, Double(Int32.max)).rounded(.up))) > 0 else { return nil }
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }   // end of file: the lab is gone
            pending.append(chunk)
        }
        let line = pending.prefix { $0 != 0x0A }
        pending.removeFirst(line.count + 1)
        return String(decoding: line, as: UTF8.self)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
