import Glibc

/// A child process driven line by line over pipes, as a person would drive an
/// interactive tool (BlueZ's btgatt-client). Every call blocks, so callers run
/// it on a thread of their own, never on Swift's cooperative pool (one thread
/// in the single-CPU VM, which our GATT server also needs).
final class InteractiveTool {
    let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var pending: [UInt8] = []

    init?(_ arguments: [String]) {
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        for descriptor in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, descriptor) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, arguments[0], &actions, nil, &argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            return nil
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
    }

    func send(_ line: String) -> Bool {
        var bytes = Array((line + "\n").utf8)
        return write(input, &bytes, bytes.count) == bytes.count
    }

    /// Reads until `marker` has appeared followed by a newline; returns the
    /// text up to that newline, or nil when the tool exits or `seconds` pass.
    func read(until marker: String, seconds: Int32) -> String? {
        let needle = Array(marker.utf8)
        while true {
            if let start = pending.firstRange(of: needle)?.lowerBound,
               let end = pending[start...].firstIndex(of: 0x0A) {
                let text = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return text
            }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, seconds * 1000) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = Glibc.read(output, &buffer, buffer.count)
            guard count > 0 else { return nil }
            pending += buffer.prefix(count)
        }
    }

    /// Closes the tool's stdin (btgatt-client quits on that) and waits for it.
    func finish() -> Int32 {
        close(input)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(output)
        return status
    }
}
