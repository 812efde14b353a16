import Foundation
import Glibc
import Synchronization

/// Why a test broker could not run.
public struct MosquittoBrokerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Debian's mosquitto broker (/usr/sbin/mosquitto) on 127.0.0.1 and a port of its own,
/// with its config, log and persistence in a fresh directory: the real broker the MQTT
/// tests run against. `Scripts/setup.sh` installs it; when it is missing ``start(options:)``
/// throws saying so, and the test fails (it is never skipped).
///
/// mosquitto cannot report a port the kernel chose for it, so the port is picked here and
/// guarded: a socket bound to it with SO_REUSEADDR, never listening, is held for the
/// broker's whole life. mosquitto (which also sets SO_REUSEADDR) may listen beside it;
/// outgoing connections and plain binds elsewhere cannot take the port, not even while
/// the broker is down between ``stop()`` and ``restart()``. Should mosquitto still find the
/// port taken, its log says "Address already in use" and ``start(options:)`` tries a fresh
/// port. Readiness is mosquitto's own log: it has opened the listener on that port and
/// says it is running.
public final class MosquittoBroker: Sendable {
    public static let executable = "/usr/sbin/mosquitto"

    /// What the generated config holds beyond the listener.
    public struct Options: Sendable {
        /// Users and passwords; when set, anonymous clients are refused.
        public var passwords: [String: String] = [:]
        /// Keep sessions, subscriptions and queued messages across ``stop()``/``restart()``.
        public var persistence = false
        /// Further config lines, as mosquitto.conf(5) spells them.
        public var extraLines: [String] = []
        /// A port for the first attempt, used as given and not guarded: only for the test
        /// that takes a port first and needs the broker to move to a fresh one.
        public var firstPort: Int?
        public init(passwords: [String: String] = [:], persistence: Bool = false, extraLines: [String] = [],
                    firstPort: Int? = nil) {
            self.passwords = passwords
            self.persistence = persistence
            self.extraLines = extraLines
            self.firstPort = firstPort
        }
    }

    /// Attempts before ``start(options:)`` gives up on finding a port mosquitto can listen on.
    static let attempts = 8

    public let port: Int
    /// The directory with mosquitto.conf, mosquitto.log and the persistence file.
    public let directory: URL
    /// Ports mosquitto found taken before it listened on ``port``, in order.
    public let refusedPorts: [Int]
    private let process: Mutex<ChildProcess?>
    /// The socket that keeps ``port`` for this broker (see the type's notes); -1 when none.
    private let guardDescriptor: Int32

    private init(port: Int, directory: URL, refusedPorts: [Int], guardDescriptor: Int32, process: ChildProcess) {
        self.port = port
        self.directory = directory
        self.refusedPorts = refusedPorts
        self.guardDescriptor = guardDescriptor
        self.process = Mutex(process)
    }

    deinit {
        process.withLock { process in
            if let process, process.isRunning {
                process.signal(SIGKILL)
                process.waitForExit()
            }
        }
        if guardDescriptor >= 0 { close(guardDescriptor) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes a config and starts the broker; returns once its log says it listens.
    public static func start(options: Options = Options()) throws -> MosquittoBroker {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw MosquittoBrokerError("\(executable) is missing: run Scripts/setup.sh (it installs Debian's mosquitto)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("attune-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var refused: [Int] = []
        for attempt in 0..<attempts {
            let (port, guardDescriptor): (Int, Int32)
            if attempt == 0, let first = options.firstPort {
                (port, guardDescriptor) = (first, -1)
            } else {
                (port, guardDescriptor) = try guardedPort()
            }
            let launched: Launch
            do {
                try writeConfig(options: options, port: port, directory: directory)
                launched = try launch(directory: directory, port: port)
            } catch {
                if guardDescriptor >= 0 { close(guardDescriptor) }
                try? FileManager.default.removeItem(at: directory)
                throw error
            }
            switch launched {
            case .listening(let child):
                return MosquittoBroker(port: port, directory: directory, refusedPorts: refused,
                                       guardDescriptor: guardDescriptor, process: child)
            case .portTaken:
                if guardDescriptor >= 0 { close(guardDescriptor) }
                refused.append(port)
            }
        }
        let text = log(in: directory)
        try? FileManager.default.removeItem(at: directory)
        throw MosquittoBrokerError("mosquitto found every port taken (\(refused.map(String.init).joined(separator: ", "))): \(text)")
    }

    private static func writeConfig(options: Options, port: Int, directory: URL) throws {
        var lines = [
            "listener \(port) 127.0.0.1",
            "allow_anonymous \(options.passwords.isEmpty)",
            "persistence \(options.persistence)",
            "persistence_location \(directory.path)/",
            // Run as root (the test runner is root in CI): keep root so the temporary
            // directory stays readable and writable for the broker.
            "user root",
            "log_dest file \(directory.path)/mosquitto.log",
            "log_type error",
            "log_type warning",
            "log_type notice",
            // The listener and "running" lines ``launch(directory:port:)`` waits for.
            "log_type information",
        ]
        if !options.passwords.isEmpty {
            let file = directory.appendingPathComponent("passwords").path
            if !FileManager.default.fileExists(atPath: file) {
                for (index, (user, password)) in options.passwords.sorted(by: { $0.key < $1.key }).enumerated() {
                    try run("/usr/bin/mosquitto_passwd", index == 0 ? ["-c", "-b", file, user, password] : ["-b", file, user, password])
                }
            }
            lines.append("password_file \(file)")
        }
        lines += options.extraLines
        try (lines.joined(separator: "\n") + "\n").write(to: directory.appendingPathComponent("mosquitto.conf"),
                                                        atomically: true, encoding: .utf8)
    }

    /// Stops the broker with SIGTERM (it saves persistence) and waits for it to exit.
    public func stop() {
        terminate(signal: SIGTERM)
    }

    /// Kills the broker with SIGKILL: no goodbye, no persistence saved.
    public func kill() {
        terminate(signal: SIGKILL)
    }

    /// Stops the broker with SIGSTOP: its connections stay open, and nothing it is sent is
    /// read or answered until ``thaw()``. A broker that says nothing, as a hung one would.
    public func freeze() {
        process.withLock { $0?.signal(SIGSTOP) }
    }

    /// Lets a frozen broker go on (SIGCONT).
    public func thaw() {
        process.withLock { $0?.signal(SIGCONT) }
    }

    /// Starts the broker again on the same port, after ``stop()`` or ``kill()``. The port
    /// stayed guarded while the broker was down, so it is still this broker's.
    public func restart() throws {
        terminate(signal: SIGTERM)
        switch try Self.launch(directory: directory, port: port) {
        case .listening(let child):
            process.withLock { $0 = child }
        case .portTaken:
            throw MosquittoBrokerError("mosquitto found its port \(port) taken on restart: \(log)")
        }
    }

    /// User plus system CPU seconds the running broker has used (0 when it is not running),
    /// from /proc/PID/stat: for benchmarks that report the broker's share.
    public var cpuSeconds: Double {
        guard let pid = process.withLock({ $0?.pid }),
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command name: state is 3rd, utime 14th and stime 15th overall.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticks > 0 ? (user + system) / ticks : 0
    }

    /// The broker's log so far, for failure messages.
    public var log: String { Self.log(in: directory) }

    private static func log(in directory: URL) -> String {
        (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? ""
    }

    private func terminate(signal: Int32) {
        let running = process.withLock { process -> ChildProcess? in
            defer { process = nil }
            return process
        }
        guard let running, running.isRunning else { return }
        running.signal(signal)
        running.waitForExit()
    }

    private enum Launch {
        case listening(ChildProcess)
        case portTaken
    }

    /// Starts mosquitto and waits for its log to say it listens on `port` and runs, or that
    /// the port is taken. The log file grows across restarts: only what follows `start`
    /// belongs to this launch.
    private static func launch(directory: URL, port: Int) throws -> Launch {
        let start = log(in: directory).utf8.count
        let child = try ChildProcess.spawn(executable, ["-c", directory.appendingPathComponent("mosquitto.conf").path])
        // A guard against a hang, not a delay: the log answers within a second when idle.
        let deadline = Date().addingTimeInterval(120)
        while true {
            // Read the exit first, so a log read after it is complete.
            let exited = !child.isRunning
            let text = String(decoding: log(in: directory).utf8.dropFirst(start), as: UTF8.self)
            if text.contains("Address already in use") {
                child.waitForExit()
                return .portTaken
            }
            if text.contains("Opening ipv4 listen socket on port \(port).") && text.contains(" running") {
                return .listening(child)
            }
            if exited {
                throw MosquittoBrokerError("mosquitto exited (wait status \(child.exitStatus ?? -1)): \(text)")
            }
            guard Date() < deadline else {
                child.signal(SIGKILL)
                child.waitForExit()
                throw MosquittoBrokerError("mosquitto did not say it listens on 127.0.0.1:\(port) within 120 s: \(text)")
            }
            usleep(10_000)
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    /// A port the kernel gives out on 127.0.0.1, and the socket that keeps it (SO_REUSEADDR,
    /// bound, never listening; see the type's notes).
    private static func guardedPort() throws -> (Int, Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MosquittoBrokerError("socket: errno \(errno)") }
        var one: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let error = errno
            close(fd)
            throw MosquittoBrokerError("SO_REUSEADDR: errno \(error)")
        }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = bound == 0 ? withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        } : -1
        guard named == 0 else {
            let error = errno
            close(fd)
            throw MosquittoBrokerError("bind or getsockname on 127.0.0.1:0: errno \(error)")
        }
        return (Int(UInt16(bigEndian: address.sin_port)), fd)
    }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let child = try ChildProcess.spawn(path, arguments)
        child.waitForExit()
        guard child.exitStatus == 0 else {
            throw MosquittoBrokerError("\(path) \(arguments.joined(separator: " ")) exited \(child.exitStatus ?? -1)")
        }
    }
}
