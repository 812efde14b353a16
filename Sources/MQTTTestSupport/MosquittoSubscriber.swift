import Foundation
import Glibc
import Synchronization

/// Debian's `mosquitto_sub` as an independent subscriber: MQTT 3.1.1 with a persistent
/// session (clean session off), so the broker (with persistence) keeps its subscription
/// and queues its messages across a broker restart. Test clients therefore cannot lose
/// messages to the race of who reconnects first.
public final class MosquittoSubscriber: Sendable {
    private let process: ChildProcess
    private final class Output: Sendable {
        struct Waiter {
            var id: Int
            var predicate: @Sendable ([String]) -> Bool
            var continuation: CheckedContinuation<Bool, Never>
        }
        struct State {
            var all: [String] = []
            var waiters: [Waiter] = []
        }
        let state = Mutex(State())
    }

    private let output = Output()
    private let nextWaiter = Mutex(0)

    /// Starts `mosquitto_sub -V 311 -c -q 1 -i clientID -t topic` against 127.0.0.1:port.
    public init(port: Int, topic: String, clientID: String) throws {
        let path = "/usr/bin/mosquitto_sub"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw MosquittoBrokerError("\(path) is missing: run Scripts/setup.sh (it installs mosquitto-clients)")
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw MosquittoBrokerError("pipe: errno \(errno)") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // Close-on-exec, so no other child keeps the pipe open (dup2 clears it on the child's 1).
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        // -d prints the SUBACK, which tells the test the subscription is in place.
        do {
            // stdbuf -oL: mosquitto_sub's stdout is a pipe, and stdio would hold its debug
            // lines (the SUBACK) until the next message flushes them.
            process = try ChildProcess.spawn("/usr/bin/stdbuf", ["-oL", path, "-h", "127.0.0.1", "-p", String(port), "-V", "311", "-c", "-q", "1",
                                                    "-i", clientID, "-t", topic, "-d", "-F", "MSG %p"], stdout: writeEnd)
        } catch {
            close(readEnd)
            close(writeEnd)
            throw error
        }
        close(writeEnd)
        let output = self.output
        Thread.detachNewThread {
            defer { close(readEnd) }
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                pending += chunk[0..<count]
                var fresh: [String] = []
                while let newline = pending.firstIndex(of: 0x0A) {
                    fresh.append(String(decoding: pending[0..<newline], as: UTF8.self))
                    pending.removeSubrange(0...newline)
                }
                let ready = output.state.withLock { state -> [CheckedContinuation<Bool, Never>] in
                    state.all += fresh
                    let all = state.all
                    let met = state.waiters.filter { $0.predicate(all) }
                    state.waiters.removeAll { waiter in met.contains { $0.id == waiter.id } }
                    return met.map(\.continuation)
                }
                for continuation in ready { continuation.resume(returning: true) }
            }
        }
    }

    deinit {
        process.signal(SIGKILL)
        process.waitForExit()
    }

    /// Payloads received so far, in order (duplicates included).
    public var payloads: [String] {
        output.state.withLock { $0.all.filter { $0.hasPrefix("MSG ") }.map { String($0.dropFirst(4)) } }
    }

    /// Waits until `predicate` holds for the output lines, or `timeout` passes (false).
    public func waitFor(timeout: Duration, _ predicate: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let id = nextWaiter.withLock { value -> Int in
            value += 1
            return value
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let now = self.output.state.withLock { state -> Bool in
                        if predicate(state.all) { return true }
                        state.waiters.append(Output.Waiter(id: id, predicate: predicate, continuation: continuation))
                        return false
                    }
                    if now { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                let waiter = self.output.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                waiter?.resume(returning: false)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Waits for the broker's SUBACK.
    public func waitSubscribed(timeout: Duration) async -> Bool {
        await waitFor(timeout: timeout) { lines in lines.contains { $0.contains("SUBACK") } }
    }
}
