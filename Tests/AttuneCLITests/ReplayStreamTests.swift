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
        var capture = try SyntheticConversations(path: path)
        // 2,500 connections of 112 PDUs: 280,000 ATT PDUs.
        for _ in 0..<2_500 { try capture.writeConversation(rounds: 50) }
        _ = try capture.writer.finish()
        #expect(capture.written == 280_000)
        for side in ["server", "client"] {
            let run = try await AttuneProcess.run(["replay", path, "--as", side], timeout: 540)
            #expect(run.status == 0, "\(run.stderr)")
            let summary = run.stdoutLines.last ?? ""
            #expect(summary.hasPrefix("140000 matched, 0 diverged"), "\(side): \(summary)")
            #expect(run.stdoutLines.filter { $0.contains(": 112 ATT PDUs") }.count == 2_500)
            #expect(run.peakKilobytes > 1024, "the peak RSS was read")
            #expect(run.peakKilobytes < 64 * 1024, "replay --as \(side) of 280,000 PDUs peaked at \(run.peakKilobytes) kB")
            print("replay --as \(side) of 280,000 PDUs over 2,500 connections: peak RSS \(run.peakKilobytes) kB")
        }
    }

    /// An endless capture written into a FIFO replays as it arrives: each conversation's
    /// report line is the event the test waits for, and the replay's resident set is the
    /// same after 2,000 conversations as after 200.
    @Test(.timeLimit(.minutes(5)))
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
        while conversations < 2_000, let line = try await offPool({ child.readLine() }) {
            if line.contains(": 52 ATT PDUs") { conversations += 1 }
            if line.contains("matched,") { lastReport = line }
            if conversations == 200, early == 0 { early = child.residentKilobytes() }
        }
        late = child.residentKilobytes()
        let peak = child.kill()
        #expect(conversations == 2_000, "\(lastReport)")
        #expect(lastReport.contains("26 matched, 0 diverged"), "\(lastReport)")
        #expect(early > 1024 && late > 1024, "the resident set was read")
        #expect(late - early < 8 * 1024, "resident set \(early) kB after 200 conversations, \(late) kB after 2,000")
        #expect(peak < 64 * 1024, "peak RSS \(peak) kB")
        print("replay of an endless FIFO: resident \(early) kB after 200 conversations, \(late) kB after 2,000, peak \(peak) kB")
    }
}

/// `attune` running with its stdout in a pipe that the test reads line by line.
final class ReplayChild: @unchecked Sendable {
    let pid: pid_t
    let output: UnsafeMutablePointer<FILE>

    init(_ arguments: [String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EIO) }
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
    func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Kills the command and returns its peak RSS (ru_maxrss, kB).
    func kill() -> Int {
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        fclose(output)
        return usage.ru_maxrss
    }
}
