import ControllerTestSupport
import Foundation
import Glibc
import Testing

/// `attune replay` streams a capture conversation by conversation: its peak RSS, measured
/// for its own process, is bounded by the largest conversation, not by the file.
@Suite struct ReplayStreamTests {
    @Test(.timeLimit(.minutes(10)))
    func aLargeCaptureReplaysInBoundedMemory() async throws {
        let path = AttuneProcess.temporaryFile(".btsnoop")
        defer { unlink(path) }
        // 700 connections of 112 PDUs: 78,400 ATT PDUs, a capture of several megabytes,
        // which the old replay held whole at about 25 times its size (far past the bound
        // below). Written off the cooperative pool: the rest of the suite shares it.
        let written = try await offPool { () throws -> Int in
            var capture = try SyntheticConversations(path: path)
            for _ in 0..<700 { try capture.writeConversation(rounds: 50) }
            _ = try capture.writer.finish()
            return capture.written
        }
        #expect(written == 78_400)
        for side in ["server", "client"] {
            let child = try ReplayChild(["replay", path, "--as", side])
            var conversations = 0, peak = 0
            var last = ""
            while let line = try await offPool({ child.readLine() }) {
                last = line
                guard line.contains(": 112 ATT PDUs") else { continue }
                conversations += 1
                // The high-water mark as the replay goes: output lines are the events.
                // The child's pipe holds 4 kB, about 45 conversations' lines, so up to
                // the 600th it cannot have ended (an ended child has no VmHWM to read).
                if conversations % 100 == 0, conversations <= 600 {
                    peak = max(peak, child.highWaterKilobytes())
                }
            }
            let status = try await offPool { child.wait() }
            #expect(status == 0)
            #expect(last.hasPrefix("39200 matched, 0 diverged"), "\(side): \(last)")
            #expect(conversations == 700)
            #expect(peak > 1024, "the high-water mark was read")
            #expect(peak < 64 * 1024, "replay --as \(side) of 78,400 PDUs peaked at \(peak) kB")
            print("replay --as \(side) of 78,400 PDUs over 700 connections: peak RSS (VmHWM) \(peak) kB")
        }
    }

    /// An endless capture written into a FIFO replays as it arrives: each conversation's
    /// report line is the event the test waits for, and the replay's resident set is the
    /// same after 600 conversations as after 100.
    @Test(.timeLimit(.minutes(10)))
    func anEndlessCaptureThroughAFIFOReplaysUntilKilled() async throws {
        let fifo = AttuneProcess.temporaryFile(".fifo")
        guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { unlink(fifo) }
        signal(SIGPIPE, SIG_IGN)
        let child = try ReplayChild(["replay", fifo, "--as", "server"])
        // The writer stops when the replay is killed and the FIFO has no reader (EPIPE).
        let writer = Thread {
            guard var capture = try? SyntheticConversations(path: fifo) else { return }
            while (try? capture.writeConversation(rounds: 20)) != nil {}
        }
        writer.start()
        var conversations = 0
        var early = 0, late = 0
        var lastReport = ""
        while conversations < 600, let line = try await offPool({ child.readLine() }) {
            if line.contains(": 52 ATT PDUs") { conversations += 1 }
            if line.contains("matched,") { lastReport = line }
            if conversations == 100, early == 0 { early = child.residentKilobytes() }
        }
        late = child.residentKilobytes()
        let peak = child.highWaterKilobytes()
        child.kill()
        #expect(conversations == 600, "\(lastReport)")
        #expect(lastReport.contains("26 matched, 0 diverged"), "\(lastReport)")
        #expect(early > 1024 && late > 1024, "the resident set was read")
        #expect(late - early < 8 * 1024, "resident set \(early) kB after 100 conversations, \(late) kB after 600")
        #expect(peak < 64 * 1024, "peak RSS \(peak) kB")
        print("replay of an endless FIFO: resident \(early) kB after 100 conversations, \(late) kB after 600, peak (VmHWM) \(peak) kB")
    }
}

extension ReplayStreamTests {
    /// One connection that goes on and on, through a FIFO: replay holds a piece of it
    /// at a time, never the connection (which the old replay held whole, at about 900
    /// bytes a PDU), so its resident set stays flat however long the connection lasts.
    /// The writer's progress is the event the resident set is sampled on; after 200,000
    /// reads the connection ends and the replay reports it, every read matched.
    @Test(.timeLimit(.minutes(10)), arguments: ["server", "client"])
    func anEndlessConnectionThroughAFIFOReplaysInBoundedMemory(_ side: String) async throws {
        let fifo = AttuneProcess.temporaryFile(".fifo")
        guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { unlink(fifo) }
        signal(SIGPIPE, SIG_IGN)
        let child = try ReplayChild(["replay", fifo, "--as", side])
        let steps = 20, readsPerStep = 10_000
        // The writer samples the resident set itself, between steps: with the FIFO
        // still open the replay cannot have ended (an ended child has no VmRSS to read,
        // which a test task starved past the writer's close used to see), and the FIFO
        // holds 64 kB, so the replay is at most that far behind the writer.
        let (progress, written) = AsyncStream.makeStream(of: (step: Int, resident: Int, peak: Int).self)
        let writer = Thread {
            defer { written.finish() }
            guard var capture = try? SyntheticConversations(path: fifo) else { return }
            do {
                try capture.open()
                for step in 1...steps {
                    try capture.writeReads(readsPerStep)
                    written.yield((step, child.residentKilobytes(), child.highWaterKilobytes()))
                }
                try capture.close()
                _ = try capture.writer.finish()
            } catch {}
        }
        writer.start()
        var early = 0, late = 0, peak = 0, seen = 0
        for await sample in progress {
            seen = sample.step
            if sample.step == 2 { early = sample.resident }
            if sample.step == steps { (late, peak) = (sample.resident, sample.peak) }
        }
        var lines: [String] = []
        while let line = try await offPool({ child.readLine() }) { lines.append(line) }
        let status = try await offPool { child.wait() }
        let pdus = 2 * steps * readsPerStep + 12
        #expect(seen == steps, "the writer stopped at step \(seen)")
        #expect(status == 0)
        #expect(lines.contains { $0.contains(": \(pdus) ATT PDUs") }, "\(lines)")
        #expect(lines.last?.hasPrefix("\(steps * readsPerStep + 6) matched, 0 diverged") == true, "\(lines)")
        #expect(early > 1024 && late > 1024, "the resident set was read")
        #expect(late - early < 8 * 1024, "resident set \(early) kB after 20,000 reads, \(late) kB after 200,000")
        #expect(peak < 64 * 1024, "peak RSS \(peak) kB")
        print("replay --as \(side) of one endless connection: resident \(early) kB after 20,000 reads, "
            + "\(late) kB after 200,000, peak (VmHWM) \(peak) kB")
    }
}

/// `attune` running with its stdout in a pipe that the test reads line by line.
final class ReplayChild: @unchecked Sendable {
    let pid: pid_t
    let output: UnsafeMutablePointer<FILE>

    init(_ arguments: [String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EIO) }
        // A small pipe holds the command back while the test is not reading: what the
        // test samples between lines is a command that is still running. (F_SETPIPE_SZ,
        // which Glibc's module leaves out with the other GNU fcntl commands.)
        let setPipeSize: Int32 = 1031
        _ = fcntl(pipeEnds[1], setPipeSize, 4096)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        let argv = [AttuneProcess.executable.path] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for a in cArguments { free(a) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, argv[0], &actions, nil, &cArguments, environ)
        close(pipeEnds[1])
        guard spawned == 0, let stream = fdopen(pipeEnds[0], "r") else {
            throw AttuneProcess.SpawnFailed(arguments: arguments, errno: spawned)
        }
        pid = child
        output = stream
    }

    /// The next line the command printed; nil when its output ends.
    func readLine() -> String? {
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        guard getline(&line, &capacity, output) >= 0, let line else { return nil }
        return String(cString: line).trimmingCharacters(in: .newlines)
    }

    /// VmRSS of the running command, in kB.
    func residentKilobytes() -> Int { statusField("VmRSS:") }

    /// VmHWM, the command's peak resident set so far, in kB. (wait4's ru_maxrss would
    /// not do: a process spawned from this one inherits the test process's high-water
    /// mark through exec.)
    func highWaterKilobytes() -> Int { statusField("VmHWM:") }

    func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Waits for the command to exit; its exit status.
    func wait() -> Int32 {
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        fclose(output)
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Kills the command and reaps it.
    func kill() {
        Glibc.kill(pid, SIGKILL)
        _ = wait()
    }
}
