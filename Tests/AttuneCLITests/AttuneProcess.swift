import ControllerTestSupport
import Foundation
import Glibc

/// The built `attune` executable, run as a user runs it.
struct AttuneProcess {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The command's peak resident set, in kB: the largest VmHWM of the process seen while
    /// it ran (sampled at every poll), else ru_maxrss. ru_maxrss alone would not do: the
    /// spawn shares this process's memory until exec, and Linux keeps that memory's high
    /// water mark in the child's ru_maxrss, so a small command would report the test
    /// runner's size.
    var peakKilobytes = 0
    /// The CPU the command used, user and system (ru_utime + ru_stime), in seconds.
    var cpuSeconds = 0.0
    /// With `interruptAfterLines`: the stdout lines counted when the SIGINT went, nil when
    /// the command ended before printing that many.
    var linesAtInterrupt: Int?

    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// The executable beside this test bundle (`swift test` builds every product before
    /// the tests run), else the package's default debug build folder.
    static var executable: URL {
        let bundleDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let beside = bundleDirectory.appendingPathComponent("attune")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/attune")
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The environment for an `attune` started with Foundation's `Process`: this one's,
    /// with `$ATTUNE_STORE` a fresh directory, so the run sees no bonds, caches or host
    /// identity that an earlier run (or the user) left behind.
    static func privateStoreEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ATTUNE_STORE"] = FileManager.default.temporaryDirectory
            .appendingPathComponent("attune-store-\(UUID().uuidString)").path
        return environment
    }

    /// Runs `attune ARGS`, killing it after `timeout` seconds (never less than the hang
    /// guard: a loaded machine may stretch any command, and only a hang may fail here) so
    /// a hang fails the test instead of stalling the suite. The waiting happens on a thread of its own: the
    /// concurrency pool has a thread per core, and tests blocking it starve the rest of
    /// the suite.
    /// With `discardStdout`, stdout goes to /dev/null (``stdout`` is empty), as when a
    /// user throws the data away: nothing the test does may slow the command down.
    /// `store` is the command's `$ATTUNE_STORE`; by default a fresh directory per run, so
    /// no run sees bonds, caches or a host identity another left behind.
    /// With `stdoutStalledUntil`, stdout goes into a pipe that nobody reads until the
    /// condition holds (checked at every poll), then is read and thrown away (``stdout`` is
    /// empty): a consumer that stops reading, as `attune subscribe | slow-tool` meets one.
    /// With `interruptAfterLines`, the command gets one SIGINT (as from ^C) once it has
    /// written that many lines to stdout, counted at every poll: a command that runs until
    /// interrupted ends on its own progress, never on a time. Its stdout still goes to a
    /// file, so counting never slows it down; with `discardStdout` the file is not kept.
    /// `environment` adds variables for this command only (the tests run in parallel, so
    /// none is set in the test process).
    static func run(_ arguments: [String], timeout: Double = 120, discardStdout: Bool = false,
                    store: String? = nil, stdoutStalledUntil: (@Sendable () -> Bool)? = nil,
                    interruptAfterLines: Int? = nil, environment: [String: String] = [:]) async throws -> AttuneProcess {
        try await offPool {
            try runBlocking(arguments, timeout: timeout, discardStdout: discardStdout, store: store,
                            stdoutStalledUntil: stdoutStalledUntil, interruptAfterLines: interruptAfterLines,
                            environment: environment)
        }
    }

    static func runBlocking(_ arguments: [String], timeout: Double, discardStdout: Bool = false,
                            store: String? = nil, stdoutStalledUntil: (@Sendable () -> Bool)? = nil,
                            interruptAfterLines: Int? = nil, environment: [String: String] = [:]) throws -> AttuneProcess {
        // Files, not pipes: nothing can block on a full pipe while we wait.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attune-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout").path, err = directory.appendingPathComponent("stderr").path
        // posix_spawn and waitpid on this thread, not Foundation's Process: its exit
        // detection runs on queues that a loaded parallel suite can hold up for minutes,
        // which once failed commands that had long exited.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // The stalled stdout's pipe: the read end stays here (non-blocking, drained at each
        // poll once released), the write end becomes the command's stdout.
        var stalled: [Int32] = [-1, -1]
        if stdoutStalledUntil != nil {
            guard pipe(&stalled) == 0 else { throw SpawnFailed(arguments: arguments, errno: errno) }
            // Close-on-exec (dup2 leaves the command's stdout open), so the command holds no
            // read end and a spawn of another test holds neither.
            for end in stalled { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(stalled[0], F_SETFL, O_NONBLOCK)
            posix_spawn_file_actions_adddup2(&actions, stalled[1], 1)
        } else {
            let toFile = !discardStdout || interruptAfterLines != nil
            posix_spawn_file_actions_addopen(&actions, 1, toFile ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        defer { for end in stalled where end >= 0 { close(end) } }
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // From the package root, as a user runs it there (fixtures are named relative to
        // it): through sh, since glibc's addchdir is not visible to Swift.
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let storeDirectory = store ?? directory.appendingPathComponent("store").path
        let extra = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(quoted($0.value)) " }.joined()
        let line = "cd \(quoted(packageRoot.path)) && \(extra)ATTUNE_STORE=\(quoted(storeDirectory)) exec "
            + ([executable.path] + arguments).map(quoted).joined(separator: " ")
        let argv = ["/bin/sh", "-c", line]
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for a in cArguments { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw SpawnFailed(arguments: arguments, errno: spawned) }
        if stalled[1] >= 0 {
            // Only the command may hold the write end: the pipe then ends when it does.
            close(stalled[1])
            stalled[1] = -1
        }
        var released = false
        var drain = [UInt8](repeating: 0, count: 65_536)
        // The stdout file read as it grows, for its newlines (the spawn has created it).
        let progress = interruptAfterLines == nil ? -1 : open(out, O_RDONLY)
        defer { if progress >= 0 { close(progress) } }
        var linesWritten = 0
        var interrupted = false
        var linesAtInterrupt: Int?
        let deadline = ContinuousClock.now + max(.milliseconds(Int(timeout * 1000)), hangGuard)
        var status: Int32 = 0
        var usage = rusage()
        var highWater = 0
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            highWater = max(highWater, Self.highWaterKilobytes(pid))
            if let condition = stdoutStalledUntil, stalled[0] >= 0 {
                released = released || condition()
                while released, read(stalled[0], &drain, drain.count) > 0 {}
            }
            if let lines = interruptAfterLines, !interrupted, progress >= 0 {
                while linesWritten < lines, case let n = read(progress, &drain, drain.count), n > 0 {
                    linesWritten += drain[..<n].lazy.filter { $0 == 0x0A }.count
                }
                if linesWritten >= lines {
                    kill(pid, SIGINT)
                    interrupted = true
                    linesAtInterrupt = linesWritten
                }
            }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw TimedOut(arguments: arguments, seconds: max(timeout, Double(hangGuard.components.seconds)))
            }
            // A sampler, not a delay: VmHWM can only be read while the process lives.
            usleep(10_000)
        }
        // WIFEXITED / WEXITSTATUS, spelled out (the C macros are not imported).
        let exitCode: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return AttuneProcess(status: exitCode,
                             stdout: discardStdout ? "" : (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                             stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "",
                             peakKilobytes: highWater > 0 ? highWater : usage.ru_maxrss,
                             cpuSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                                 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
                             linesAtInterrupt: linesAtInterrupt)
    }

    /// VmHWM of a running process (its own peak resident set since its last exec), 0 if unknown.
    static func highWaterKilobytes(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    struct SpawnFailed: Error, CustomStringConvertible {
        var arguments: [String]
        var errno: Int32
        var description: String { "attune \(arguments.joined(separator: " ")) could not be started (errno \(errno))" }
    }

    struct TimedOut: Error, CustomStringConvertible {
        var arguments: [String]
        var seconds: Double
        var description: String { "attune \(arguments.joined(separator: " ")) ran longer than \(seconds) s" }
    }

    /// A fresh path in the temporary directory.
    static func temporaryFile(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("attune-\(UUID().uuidString)\(suffix)").path
    }
}

extension String {
    /// The object of one JSON line.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(utf8))) as? [String: Any]
    }
}
