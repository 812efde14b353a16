import BumbleTestSupport
import ControllerTestSupport
import Foundation
import Testing

/// One run of `Scripts/interop/lab.py`: emulated controllers on a virtual link, with
/// Bumble devices on some of them. Each test case gets a fresh lab, because HCI Reset
/// does not clear the emulated controllers' state.
public final class InteropLab: Sendable {
    /// One JSON line the lab wrote.
    public struct Event: Sendable, CustomStringConvertible {
        public let line: String
        public var name: String { string("event") ?? "" }
        public var description: String { line }

        private var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
        public func string(_ key: String) -> String? { object[key] as? String }
        public func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
        public func bool(_ key: String) -> Bool? { (object[key] as? NSNumber)?.boolValue }
        public func ints(_ key: String) -> [Int] { (object[key] as? [NSNumber])?.map(\.intValue) ?? [] }
        /// `handles[index][name]` from the ready event.
        public func handle(_ name: String, device: Int = 0) -> UInt16? {
            guard let all = object["handles"] as? [[String: Any]], device < all.count,
                  let value = all[device][name] as? NSNumber else { return nil }
            return UInt16(value.intValue)
        }
        /// The judge's verdicts: cell name → (passed, detail), from a `judge` result.
        public func cells() -> [String: (ok: Bool, detail: String)] {
            guard let all = object["cells"] as? [String: [String: Any]] else { return [:] }
            return all.mapValues { cell in
                ((cell["ok"] as? NSNumber)?.boolValue ?? false, "\(cell["detail"] ?? "")")
            }
        }
        /// `devices[index][key]` from the ready event.
        public func device(_ index: Int, _ key: String) -> String? {
            guard let all = object["devices"] as? [[String: Any]], index < all.count else { return nil }
            return all[index][key] as? String
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public static let repositoryRoot: URL = BumbleVenv.repositoryRoot

    /// The cells Bumble's GATT client runs as judge (Scripts/interop/lab.py, `Judge`).
    public static let judgeCells = ["connect", "mtu", "discovery", "read", "long_read", "read_by_uuid", "write",
                                    "long_write", "write_without_response", "notify", "indicate", "callback_error",
                                    "disconnect"]

    /// True when python3 is on PATH: the only reason the interop suite may skip.
    public static let pythonAvailable: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }
    }()

    private let lab: BumbleLabProcess<Event>
    /// Where this session's captures go.
    public let captureDirectory: URL
    /// The ready event: ports, device addresses, attribute handles.
    public private(set) nonisolated(unsafe) var ready: Event!

    /// Launches the lab; ``start(role:hostControllers:devices:notifyCount:lifetime:name:)`` also waits for it.
    private init(role: String, hostControllers: Int = 1, devices: Int = 1, notifyCount: Int = 3,
         lifetime: Duration = hangGuard, arguments: [String] = [], name: String = #function) throws {
        let safeName = name.filter { $0.isLetter || $0.isNumber }
        captureDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("attune-interop-\(safeName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: captureDirectory, withIntermediateDirectories: true)
        lab = try BumbleLabProcess(script: "lab.py", arguments: [
            "--role", role, "--host-controllers", String(hostControllers),
            "--devices", String(devices), "--notify-count", String(notifyCount),
            "--lifetime", String(lifetime.components.seconds), "--snoop-dir", captureDirectory.path] + arguments) { Event(line: $0) }
    }

    /// Starts a lab and waits (without blocking a thread) for its ready line. Tests that
    /// use a lab allow 20 minutes: lab.py runs one lab at a time, so a test may wait its
    /// turn behind the others of the suite before its own lab starts. `arguments`
    /// go to lab.py as they are (`--protected`, say).
    public static func start(role: String, hostControllers: Int = 1, devices: Int = 1, notifyCount: Int = 3,
                      lifetime: Duration = hangGuard, arguments: [String] = [], name: String = #function) async throws -> InteropLab {
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
    public func port(_ index: Int = 0) -> Int { ready.ints("ports")[index] }

    /// Everything the lab wrote so far.
    public var events: [Event] { lab.events }

    /// Sends one command line to the lab.
    public func send(_ command: String) {
        lab.send(command)
    }

    /// Waits for the first event named `name` (after `skipping` earlier ones) that matches.
    @discardableResult
    public func waitFor(_ name: String, timeout: Duration = hangGuard, skipping: Int = 0,
                 where predicate: (Event) -> Bool = { _ in true }) async throws -> Event {
        try await lab.waitFor("'\(name)' event", within: timeout) { events in
            var matched = 0
            for event in events where event.name == name && predicate(event) {
                if matched == skipping { return event }
                matched += 1
            }
            return nil
        }
    }

    /// Runs a command and waits for its result line.
    public func run(_ command: String, timeout: Duration = hangGuard) async throws -> Event {
        let word = String(command.split(separator: " ").first ?? "")
        let before = events.filter { $0.name == "result" && $0.string("command") == word }.count
        send(command)
        return try await waitFor("result", timeout: timeout, skipping: before) { $0.string("command") == word }
    }

    /// Ends the lab and waits until it has exited, so Bumble's captures are complete on
    /// disk, then checks each with our decoder and tshark, which must agree.
    public func finishAndVerifyCaptures(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        await lab.finish(within: .seconds(5))
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
    public func stop() {
        lab.stop()
        if ProcessInfo.processInfo.environment["ATTUNE_INTEROP_KEEP"] != "1" {
            try? FileManager.default.removeItem(at: captureDirectory)
        }
    }
}
