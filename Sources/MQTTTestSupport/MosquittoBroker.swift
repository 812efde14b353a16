import Foundation
import Glibc
import Synchronization

/// Why a test broker could not run.
public struct MosquittoBrokerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Debian's mosquitto broker (/usr/sbin/mosquitto) on 127.0.0.1 and a free random port,
/// with its config, log and persistence in a fresh directory: the real broker the MQTT
/// tests run against. `Scripts/setup.sh` installs it; when it is missing ``start(options:)``
/// throws saying so, and the test fails (it is never skipped).
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
        public init(passwords: [String: String] = [:], persistence: Bool = false, extraLines: [String] = []) {
            self.passwords = passwords
            self.persistence = persistence
            self.extraLines = extraLines
        }
    }

    public let port: Int
    /// The directory with mosquitto.conf, mosquitto.log and the persistence file.
    public let directory: URL
    private let process = Mutex<ChildProcess?>(nil)

    private init(port: Int, directory: URL) {
        self.port = port
        self.directory = directory
    }

    deinit {
        process.withLock { process in
            if let process, process.isRunning {
                process.signal(SIGKILL)
                process.waitForExit()
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes a config and starts the broker; returns once its port accepts connections.
    public static func start(options: Options = Options()) throws -> MosquittoBroker {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw MosquittoBrokerError("\(executable) is missing: run Scripts/setup.sh (it installs Debian's mosquitto)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("attune-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freePort()
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
            "log_type information",
        ]
        if !options.passwords.isEmpty {
            let file = directory.appendingPathComponent("passwords").path
            for (index, (user, password)) in options.passwords.sorted(by: { $0.key < $1.key }).enumerated() {
                try run("/usr/bin/mosquitto_passwd", index == 0 ? ["-c", "-b", file, user, password] : ["-b", file, user, password])
            }
            lines.append("password_file \(file)")
        }
        lines += options.extraLines
        try (lines.joined(separator: "\n") + "\n").write(to: directory.appendingPathComponent("mosquitto.conf"),
                                                        atomically: true, encoding: .utf8)
        let broker = MosquittoBroker(port: port, directory: directory)
        try broker.launch()
        return broker
    }

    /// Stops the broker with SIGTERM (it saves persistence) and waits for it to exit.
    public func stop() {
        terminate(signal: SIGTERM)
    }

    /// Kills the broker with SIGKILL: no goodbye, no persistence saved.
    public func kill() {
        terminate(signal: SIGKILL)
    }

    /// Starts the broker again on the same port, after ``stop()`` or ``kill()``.
    public func restart() throws {
        terminate(signal: SIGTERM)
        try launch()
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
    public var log: String {
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

    private func launch() throws {
        let child = try ChildProcess.spawn(Self.executable, ["-c", directory.appendingPathComponent("mosquitto.conf").path])
        process.withLock { $0 = child }
        // Readiness, not a delay: connect until the listener answers, within a deadline.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if Self.accepts(port: port) { return }
            guard child.isRunning else {
                throw MosquittoBrokerError("mosquitto exited (wait status \(child.exitStatus ?? -1)): \(log)")
            }
            usleep(20_000)
        }
        throw MosquittoBrokerError("mosquitto did not listen on 127.0.0.1:\(port) within 15 s: \(log)")
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port the kernel just gave out on 127.0.0.1 and that nothing holds now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw MosquittoBrokerError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw MosquittoBrokerError("bind: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw MosquittoBrokerError("getsockname: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let child = try ChildProcess.spawn(path, arguments)
        child.waitForExit()
        guard child.exitStatus == 0 else {
            throw MosquittoBrokerError("\(path) \(arguments.joined(separator: " ")) exited \(child.exitStatus ?? -1)")
        }
    }
}
