import Glibc
import Synchronization

/// A child started with posix_spawn and a clean signal mask, reaped with waitpid.
///
/// Not Foundation's Process: a child inherits its parent's blocked signals, and a test
/// process that blocks SIGTERM and SIGHUP (for a signalfd) would hand the broker a mask
/// that makes `stop()` wait for ever; and Process's exit detection runs on queues a
/// loaded suite can hold up.
final class ChildProcess: Sendable {
    let pid: pid_t
    private let status = Mutex<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `path` with `arguments`; stdin and stderr are /dev/null, stdout is `stdout`
    /// (a descriptor the child gets as 1) or /dev/null.
    static func spawn(_ path: String, _ arguments: [String], stdout: Int32? = nil) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdout {
            posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of the test process: a broker that kept another test's pipe or
        // socket open would keep that test from ever seeing its end (a Bumble venv check
        // once waited for ever on a stderr pipe a broker spawned beside it held).
        Self.closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGHUP, SIGINT, SIGPIPE, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        var cArguments = argv + [nil]
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, &cArguments, environ)
        guard result == 0 else { throw MosquittoBrokerError("posix_spawn \(path): errno \(result)") }
        return ChildProcess(pid: pid)
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34), which the Glibc module does
    /// not import, looked up once.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        if let addCloseFrom { _ = addCloseFrom(&actions, lowest) }
    }

    /// Whether it has not exited yet (reaps it if it has).
    var isRunning: Bool {
        status.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status == nil
        }
    }

    /// The raw wait status once it has exited, else nil.
    var exitStatus: Int32? { _ = isRunning; return status.withLock { $0 } }

    func signal(_ signal: Int32) {
        if isRunning { Glibc.kill(pid, signal) }
    }

    /// Blocks until it exits.
    func waitForExit() {
        status.withLock { status in
            guard status == nil else { return }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
    }
}
