import Foundation
import Testing

/// The CLI over the userland host (H4 on TCP) against Bumble: each case starts
/// Scripts/interop/lab.py (an emulated controller for us, a Bumble GATT peripheral on the
/// same virtual link) and runs one `attune` command with `--transport tcp:127.0.0.1:PORT`.
/// A fresh lab per case: the emulated peripheral takes one connection, and an emulated
/// controller keeps its state across HCI Reset. Skipped only when python3 is missing.
@Suite("attune over H4 against Bumble", .serialized, .enabled(if: BumbleLab.pythonAvailable, "python3 is missing"))
struct BumbleCLITests {
    @Test(.timeLimit(.minutes(2)))
    func stateIsPoweredOn() throws {
        let lab = try BumbleLab()
        defer { lab.stop() }
        let run = try AttuneProcess.run(["state", "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout == "\(lab.transport): poweredOn\n")
    }

    @Test(.timeLimit(.minutes(2)))
    func discoverFindsBumblesDatabase() throws {
        let lab = try BumbleLab()
        defer { lab.stop() }
        let run = try AttuneProcess.run(["discover", lab.address, "--random", "--json", "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let services = try #require(run.stdout.jsonObject?["services"] as? [[String: Any]])
        let values = services.flatMap { ($0["characteristics"] as? [[String: Any]]) ?? [] }.compactMap { $0["value"] as? Int }
        for (name, handle) in lab.handles { #expect(values.contains(handle), "\(name) at \(handle) discovered") }
    }

    @Test(.timeLimit(.minutes(2)))
    func longReadMatchesBumblesValue() throws {
        let lab = try BumbleLab()
        defer { lab.stop() }
        let handle = try #require(lab.handles["long_read"])
        let run = try AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random", "--json",
                                         "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let expected = (0..<300).map { String(format: "%02x", ($0 * 7 + 3) & 0xFF) }.joined()
        #expect(run.stdout.jsonObject?["value"] as? String == expected)
    }

    @Test(.timeLimit(.minutes(2)))
    func subscribeReceivesBumblesNotifications() throws {
        let lab = try BumbleLab()
        defer { lab.stop() }
        let handle = try #require(lab.handles["notify"])
        let run = try AttuneProcess.run(["subscribe", lab.address, String(format: "0x%04x", handle), "--count", "3", "--random",
                                         "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdoutLines.count == 3)
    }

    @Test(.timeLimit(.minutes(2)))
    func longWriteIsAccepted() throws {
        let lab = try BumbleLab()
        defer { lab.stop() }
        let handle = try #require(lab.handles["long_write"])
        let run = try AttuneProcess.run(["write", lab.address, String(format: "0x%04x", handle), String(repeating: "5a", count: 400),
                                         "--long", "--random", "--transport", lab.transport], timeout: 30)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.hasPrefix("wrote 400 bytes"))
    }
}

/// One run of Scripts/interop/lab.py, until ``stop()`` closes its stdin.
final class BumbleLab {
    let process = Process()
    let input = Pipe()
    let port: Int
    let address: String
    let handles: [String: Int]
    var transport: String { "tcp:127.0.0.1:\(port)" }

    static var interop: URL { AttuneProcess.packageRoot.appendingPathComponent("Scripts/interop") }

    static var pythonAvailable: Bool {
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") } ?? false
    }

    /// The pinned Bumble in Scripts/interop/.venv, installed once per test process.
    static let setUp: Result<Void, Failure> = {
        let setup = Process()
        setup.executableURL = URL(fileURLWithPath: "/bin/bash")
        setup.arguments = [interop.appendingPathComponent("setup.sh").path]
        setup.standardOutput = FileHandle.nullDevice
        do { try setup.run() } catch { return .failure(Failure(description: "setup.sh: \(error)")) }
        setup.waitUntilExit()
        return setup.terminationStatus == 0 ? .success(()) : .failure(Failure(description: "setup.sh exited \(setup.terminationStatus)"))
    }()

    struct Failure: Error, CustomStringConvertible { var description: String }

    init() throws {
        try Self.setUp.get()
        process.executableURL = Self.interop.appendingPathComponent(".venv/bin/python")
        process.arguments = [Self.interop.appendingPathComponent("lab.py").path, "--lifetime", "90"]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is `ready`, with the port, the peripheral's address and its handles.
        var buffer = Data()
        let deadline = Date().addingTimeInterval(60)
        while !buffer.contains(0x0A), Date() < deadline, process.isRunning {
            buffer.append(output.fileHandleForReading.availableData)
        }
        let line = String(decoding: buffer.prefix { $0 != 0x0A }, as: UTF8.self)
        guard let ready = line.jsonObject, ready["event"] as? String == "ready",
              let port = (ready["ports"] as? [Int])?.first,
              let address = (ready["devices"] as? [[String: Any]])?.first?["address"] as? String,
              let handles = (ready["handles"] as? [[String: Int]])?.first else {
            process.terminate()
            throw Failure(description: "lab.py did not get ready: \(line)")
        }
        (self.port, self.address, self.handles) = (port, address, handles)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
