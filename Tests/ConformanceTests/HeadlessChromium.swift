import Foundation
import WaitTestSupport

/// Debian's `chromium` run headless on a file: the DOM it built (`--dump-dom`) with the
/// console lines it logged (`--enable-logging=stderr` prints each console message,
/// whatever its level, as a line with `:CONSOLE` in it), or a screenshot. Each run has a
/// profile directory of its own, so tests beside it cannot share Chromium's profile lock.
struct HeadlessChromium {
    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "\(path) not found: the HTML report tests render the page in Debian's chromium; run Scripts/setup.sh"
        }
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// What Chromium made of a page.
    struct Rendering {
        var dom: String
        /// The console messages: the report has no script, so every one came from a page
        /// that is not the one we wrote.
        var consoleLines: [String]
    }

    let executable: String
    /// The window, and so the screenshot: wide enough for the ladders, tall enough for
    /// the summary and the first tests.
    static let windowSize = "1200,2000"

    init(executable: String = "/usr/bin/chromium") throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw Missing(path: executable) }
        self.executable = executable
    }

    func load(_ page: URL) async throws -> Rendering {
        let (stdout, stderr) = try await run(["--enable-logging=stderr", "--v=0", "--dump-dom", page.absoluteString])
        let console = stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        return Rendering(dom: stdout, consoleLines: console)
    }

    /// The PNG of the page in a ``windowSize`` window.
    func screenshot(_ page: URL) async throws -> [UInt8] {
        let png = FileManager.default.temporaryDirectory.appendingPathComponent("attune-shot-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: png) }
        _ = try await run(["--screenshot=\(png.path)", "--window-size=\(Self.windowSize)", "--hide-scrollbars", page.absoluteString])
        guard let data = FileManager.default.contents(atPath: png.path) else {
            throw Failed(description: "chromium wrote no screenshot of \(page.path)")
        }
        return Array(data)
    }

    /// Runs Chromium to its exit, off the cooperative pool; the output goes to files, so
    /// no pipe can fill and stall it. Three minutes is only a guard against a hang.
    private func run(_ arguments: [String]) async throws -> (stdout: String, stderr: String) {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("attune-chromium-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let out = dir.appendingPathComponent("stdout"), err = dir.appendingPathComponent("stderr")
        try Data().write(to: out)
        try Data().write(to: err)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--user-data-dir=\(dir.appendingPathComponent("profile").path)"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let finished = try await offPool { exited.wait(timeout: .now() + .seconds(180)) == .success }
        guard finished else {
            process.terminate()
            throw Failed(description: "chromium did not exit within 3 minutes: \(arguments.joined(separator: " "))")
        }
        let stdout = String(decoding: fm.contents(atPath: out.path) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: fm.contents(atPath: err.path) ?? Data(), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failed(description: "chromium exited \(process.terminationStatus):\n\(stderr.suffix(2000))")
        }
        return (stdout, stderr)
    }
}
