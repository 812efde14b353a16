import ControllerTestSupport
import Foundation
import Synchronization
import Testing

/// One run of `Scripts/interop/lab.py`: emulated controllers on a virtual link, with
/// Bumble devices on some of them. Each test case gets a fresh lab, because HCI Reset
/// does not clear the emulated controllers' state.
final class InteropLab: Sendable {
    /// One JSON line the lab wrote.
    struct Event: Sendable, CustomStringConvertible {
        let line: String
        var name: String { string("event") ?? "" }
        var description: String { line }

        private var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
        func string(_ key: String) -> String? { object[key] as? String }
        func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
        func bool(_ key: String) -> Bool? { (object[key] as? NSNumber)?.boolValue }
        func ints(_ key: String) -> [Int] { (object[key] as? [NSNumber])?.map(\.intValue) ?? [] }
        /// `handles[index][name]` from the ready event.
        func handle(_ name: String, device: Int = 0) -> UInt16? {
            guard let all = object["handles"] as? [[String: Any]], device < all.count,
                  let value = all[device][name] as? NSNumber else { return nil }
            return UInt16(value.intValue)
        }
        /// The judge's verdicts: cell name → (passed, detail), from a `judge` result.
        func cells() -> [String: (ok: Bool, detail: String)] {
            guard let all = object["cells"] as? [String: [String: Any]] else { return [:] }
            return all.mapValues { cell in
                ((cell["ok"] as? NSNumber)?.boolValue ?? false, "\(cell["detail"] ?? "")")
            }
        }
        /// `devices[index][key]` from the ready event.
        func device(_ index: Int, _ key: String) -> String? {
            guard let all = object["devices"] as? [[String: Any]], index < all.count else { return nil }
            return all[index][key] as? String
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let interopDirectory = repositoryRoot.appendingPathComponent("Scripts/interop")

    /// True when python3 is on PATH: the only reason the interop suite may skip.
    static let pythonAvailable: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }
    }()

    private static let setupResult = Mutex<Result<Void, Failure>?>(nil)

    /// Throws, saying to run Scripts/setup.sh, unless the pinned Bumble is in the venv:
    /// Scripts/setup.sh makes it, never a test, so pip does not run beside the suite.
    /// `venv` checks another folder (the test of that message); the answer for the
    /// project's own venv is kept for the process.
    static func ensureSetup(venv: String? = nil) throws {
        guard let venv else {
            return try setupResult.withLock { result in
                if result == nil { result = checkSetup(venv: nil) }
                try result!.get()
            }
        }
        try checkSetup(venv: venv).get()
    }

    private static func checkSetup(venv: String?) -> Result<Void, Failure> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [interopDirectory.appendingPathComponent("setup.sh").path, "--check"]
        if let venv {
            var environment = ProcessInfo.processInfo.environment
            environment["ATTUNE_INTEROP_VENV"] = venv
            process.environment = environment
        }
        // A file, not a pipe: a pipe's end reaches EOF only when every process holding it
        // has closed it, and a child another test spawns meanwhile may inherit it.
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("attune-venv-check-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errorPath.path, contents: nil),
              let errors = try? FileHandle(forWritingTo: errorPath) else {
            return .failure(Failure(description: "cannot create \(errorPath.path) for the venv check"))
        }
        defer {
            try? errors.close()
            try? FileManager.default.removeItem(at: errorPath)
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failure(Failure(description: "cannot run Scripts/interop/setup.sh --check: \(error); run Scripts/setup.sh"))
        }
        process.waitUntilExit()
        let text = (try? String(contentsOf: errorPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            return .failure(Failure(description: text.isEmpty
                ? "the Bumble venv is not ready (setup.sh --check exited \(process.terminationStatus)): run Scripts/setup.sh"
                : text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return .success(())
    }

    private let process: Process
    private let input: FileHandle
    private let lines = LockedBox<[String]>([])
    private let errorText = LockedBox<String>("")
    /// Where this session's captures go.
    let captureDirectory: URL
    /// The ready event: ports, device addresses, attribute handles.
    private(set) nonisolated(unsafe) var ready: Event!

    /// Launches the lab; ``start(role:hostControllers:devices:notifyCount:lifetime:name:)`` also waits for it.
    private init(role: String, hostControllers: Int = 1, devices: Int = 1, notifyCount: Int = 3,
         lifetime: Int = 60, arguments: [String] = [], name: String = #function) throws {
        try Self.ensureSetup()
        let safeName = name.filter { $0.isLetter || $0.isNumber }
        captureDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("attune-interop-\(safeName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: captureDirectory, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = Self.interopDirectory.appendingPathComponent(".venv/bin/python")
        process.arguments = [Self.interopDirectory.appendingPathComponent("lab.py").path,
                             "--role", role, "--host-controllers", String(hostControllers),
                             "--devices", String(devices), "--notify-count", String(notifyCount),
                             "--lifetime", String(lifetime), "--snoop-dir", captureDirectory.path] + arguments
        let stdinPipe = Pipe(), stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        input = stdinPipe.fileHandleForWriting
        try process.run()
        let output = stdoutPipe.fileHandleForReading
        let errors = stderrPipe.fileHandleForReading
        let lines = self.lines
        let errorText = self.errorText
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.value.withLock { $0.append(line) }
                }
            }
        }
        Thread.detachNewThread {
            while true {
                let chunk = errors.availableData
                if chunk.isEmpty { break }
                errorText.value.withLock { text in
                    // Keep the tail only: enough to explain a failure, bounded in memory.
                    text += String(decoding: chunk, as: UTF8.self)
                    if text.count > 8000 { text = String(text.suffix(4000)) }
                }
            }
        }
    }

    /// Starts a lab and waits (without blocking a thread) for its ready line. Tests that
    /// use a lab allow 20 minutes: lab.py runs one lab at a time, so a test may wait its
    /// turn behind the others of the suite before its own lab starts. `arguments`
    /// go to lab.py as they are (`--protected`, say).
    static func start(role: String, hostControllers: Int = 1, devices: Int = 1, notifyCount: Int = 3,
                      lifetime: Int = 60, arguments: [String] = [], name: String = #function) async throws -> InteropLab {
        // Off the cooperative pool: the first lab runs setup.sh (the Bumble venv, minutes on a
        // fresh machine) under a lock every other lab waits on. On the pool that held both of
        // a two-core machine's threads, and every async test of the process stood still.
        let lab = try await offPool {
            try InteropLab(role: role, hostControllers: hostControllers, devices: devices,
                           notifyCount: notifyCount, lifetime: lifetime, arguments: arguments, name: name)
        }
        do {
            // Python importing Bumble while the whole suite starts beside it can take
            // well over 30 s on two cores: this is a wait for an event, not a delay.
            // lab.py runs one lab at a time: `ready` comes once the labs started before
            // this one have ended, so the wait is long (a wait for the line, not a delay).
            lab.ready = try await lab.waitFor("ready", timeout: .seconds(900))
        } catch {
            lab.stop()
            throw error
        }
        return lab
    }

    deinit { stop() }

    /// The TCP port of host controller `index`, for `tcp:127.0.0.1:PORT`.
    func port(_ index: Int = 0) -> Int { ready.ints("ports")[index] }

    /// Everything the lab wrote so far.
    var events: [Event] { lines.value.withLock { $0.map(Event.init(line:)) } }

    /// Sends one command line to the lab.
    func send(_ command: String) {
        try? input.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Waits for the first event named `name` (after `skipping` earlier ones) that matches.
    @discardableResult
    func waitFor(_ name: String, timeout: Duration = .seconds(600), skipping: Int = 0,
                 where predicate: (Event) -> Bool = { _ in true }) async throws -> Event {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let matches = events.filter { $0.name == name && predicate($0) }
            if matches.count > skipping { return matches[skipping] }
            if !process.isRunning {
                throw Failure(description: "lab exited (\(process.terminationStatus)) before '\(name)'; stderr: \(errorText.value.withLock { $0 })")
            }
            // Never block a thread here: the code under test needs the cooperative pool.
            try await Task.sleep(for: .milliseconds(10))
        }
        throw Failure(description: "no '\(name)' event from the lab within \(timeout); events: \(events.map(\.line)); stderr tail: \(errorText.value.withLock { String($0.suffix(1500)) })")
    }

    /// Runs a command and waits for its result line.
    func run(_ command: String, timeout: Duration = .seconds(600)) async throws -> Event {
        let word = String(command.split(separator: " ").first ?? "")
        let before = events.filter { $0.name == "result" && $0.string("command") == word }.count
        send(command)
        return try await waitFor("result", timeout: timeout, skipping: before) { $0.string("command") == word }
    }

    /// Ends the lab and waits until it has exited, so Bumble's captures are complete on
    /// disk, then checks each with our decoder and tshark, which must agree.
    func finishAndVerifyCaptures(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        send("quit")
        try? input.close()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let files = try FileManager.default.contentsOfDirectory(atPath: captureDirectory.path)
            .filter { $0.hasPrefix("bumble-") && $0.hasSuffix(".btsnoop") }
        #expect(!files.isEmpty, "Bumble wrote captures", sourceLocation: sourceLocation)
        for file in files {
            let capture = try SessionCapture(path: captureDirectory.appendingPathComponent(file).path)
            #expect(capture.firstRecordIsSentCommand, "\(file) starts with a command sent", sourceLocation: sourceLocation)
            #expect(!capture.attune.isEmpty, "\(file) holds ATT traffic", sourceLocation: sourceLocation)
            if let tshark = capture.tshark {
                #expect(tshark.map { "\($0.sent):\($0.opcode)" } == capture.attune.map { "\($0.sent):\($0.opcode)" },
                        "\(file): tshark and attune agree", sourceLocation: sourceLocation)
            }
        }
    }

    /// Ends the lab process and everything in it, within a bounded time, and removes the
    /// session's captures unless ATTUNE_INTEROP_KEEP=1 asks to keep them for a look.
    func stop() {
        defer {
            if ProcessInfo.processInfo.environment["ATTUNE_INTEROP_KEEP"] != "1" {
                try? FileManager.default.removeItem(at: captureDirectory)
            }
        }
        guard process.isRunning else { return }
        send("quit")
        try? input.close()
        // Make sure it ends, without holding up the caller: quit, then SIGTERM, then SIGKILL.
        let process = self.process
        Thread.detachNewThread {
            let deadline = ContinuousClock.now + .seconds(3)
            while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { process.terminate() }
            let killDeadline = ContinuousClock.now + .seconds(2)
            while process.isRunning && ContinuousClock.now < killDeadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}

/// A mutex-protected value that closures on other threads can share by reference.
final class LockedBox<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
}
