import Foundation
import Glibc
import Synchronization

/// One run of a lab script of Scripts/interop (lab.py, gateway_lab.py) in Bumble's venv:
/// the JSON lines it writes, read into `Event`s as they come; the tail of its stderr;
/// commands on its stdin; and an end that cannot hang. The interop tests, the gateway's
/// lab and attune-bench's pairing figure all launch their labs here, each reading a line
/// its own way.
public final class BumbleLabProcess<Event: Sendable>: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let script: String
    private let process: Process
    private let input: FileHandle
    /// What the reader threads collect: the events and the tail of stderr.
    private final class Output: Sendable {
        let events = Mutex<[Event]>([])
        let errors = Mutex("")
    }
    private let output = Output()

    /// Starts `script` (a file of Scripts/interop) with `arguments`, once ``BumbleVenv``
    /// says the venv is ready; `event` reads one line of its output.
    public init(script: String, arguments: [String], event: @escaping @Sendable (String) -> Event) throws {
        try BumbleVenv.check()
        self.script = script
        process = Process()
        process.executableURL = BumbleVenv.python
        process.arguments = [BumbleVenv.interopDirectory.appendingPathComponent(script).path] + arguments
        let stdinPipe = Pipe(), stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        input = stdinPipe.fileHandleForWriting
        try process.run()
        let reading = stdoutPipe.fileHandleForReading, errorOutput = stderrPipe.fileHandleForReading
        let collected = output
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { return }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    let parsed = event(line)
                    collected.events.withLock { $0.append(parsed) }
                }
            }
        }
        Thread.detachNewThread {
            while true {
                let chunk = errorOutput.availableData
                if chunk.isEmpty { return }
                collected.errors.withLock { text in
                    // The tail only: enough to explain a failure, bounded in memory.
                    text += String(decoding: chunk, as: UTF8.self)
                    if text.count > 8000 { text = String(text.suffix(4000)) }
                }
            }
        }
    }

    deinit { stop() }

    /// Everything the lab wrote so far, in order.
    public var events: [Event] { output.events.withLock { $0 } }

    /// How many events the lab wrote so far: where a wait for what comes next starts.
    public var eventCount: Int { output.events.withLock { $0.count } }

    /// Whether the lab process still runs.
    public var isRunning: Bool { process.isRunning }

    /// Sends one command line.
    public func send(_ command: String) {
        try? input.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Waits until `find` finds what it looks for among the events so far, and returns it;
    /// `what` names it when the lab exits first or `timeout` passes. A poll of what the
    /// reader thread collected, so no thread is ever blocked here (the code under test
    /// needs the cooperative pool).
    public func waitFor<Found>(_ what: String, within timeout: Duration,
                               _ find: ([Event]) -> Found?) async throws -> Found {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = find(events) { return found }
            guard process.isRunning else {
                throw Failure(description: "\(script) exited (\(process.terminationStatus)) before \(what); "
                              + "stderr: \(output.errors.withLock { $0 })")
            }
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "no \(what) from \(script) within \(timeout); last events: "
                              + "\(events.suffix(20)); stderr tail: \(output.errors.withLock { String($0.suffix(1500)) })")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Asks the lab to quit and waits, up to `limit`, until it has exited (so that what it
    /// writes on the way out, such as captures, is complete).
    public func finish(within limit: Duration) async {
        send("quit")
        try? input.close()
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// Ends the lab: quit, then SIGTERM, then SIGKILL, without holding up the caller.
    public func stop() {
        guard process.isRunning else { return }
        send("quit")
        try? input.close()
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

/// CLOCK_MONOTONIC in seconds: the clock of the labs' `t` stamps (Python's time.monotonic()).
public func labMonotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
