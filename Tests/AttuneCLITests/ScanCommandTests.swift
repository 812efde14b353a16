import Foundation
import Testing

/// `attune scan` on both of its paths (`--controller`, straight through the userland
/// host, and `--transport`, through CentralManager) against an ``AdvertisingController``
/// whose device A sends a scan response with a hostile name, three times over.
@Suite("attune scan against advertisers with scan responses")
struct ScanCommandTests {
    /// The same scan on each path: 1 s against the controller at `path`.
    static func paths(_ path: String) -> [(String, [String])] {
        [("--controller", ["--controller", "unix:" + path, "--seconds", "1"]),
         ("--transport", ["--transport", "unix:" + path, "--timeout", "1"])]
    }

    static func objects(_ run: AttuneProcess) throws -> [[String: Any]] {
        try run.stdoutLines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not an object: \(line)")
        }
    }

    @Test func withoutDuplicatesEachDeviceOnceMergedThenUpdates() async throws {
        let controller = AdvertisingController()
        defer { controller.close() }
        for (label, arguments) in Self.paths(controller.path) {
            let run = try await AttuneProcess.run(["scan", "--json"] + arguments)
            #expect(run.status == 0, "\(label): \(run.stderr)")
            #expect(!run.stdout.contains("\u{1b}") && !run.stdout.contains("\u{9b}"), "\(label): escaped in JSON too")
            let objects = try Self.objects(run)
            let a = objects.filter { $0["address"] as? String == AdvertisingController.a.description }
            let b = objects.filter { $0["address"] as? String == AdvertisingController.b.description }
            #expect(a.count == 1, "\(label): A once, its scan response merged in: \(run.stdout)")
            #expect(a.first?["name"] as? String == AdvertisingController.hostileName, "\(label)")
            #expect(a.first?["services"] as? [String] == ["180D"], "\(label)")
            #expect(a.first?["connectable"] as? Bool == true, "\(label)")
            #expect(a.first?["update"] as? Bool == false, "\(label)")
            #expect(b.map { $0["name"] as? String } == ["B1", "B2"], "\(label): B, then renamed: \(run.stdout)")
            #expect(b.map { $0["update"] as? Bool } == [false, true], "\(label)")
        }
    }

    @Test func duplicatesPrintEveryReport() async throws {
        let controller = AdvertisingController()
        defer { controller.close() }
        for (label, arguments) in Self.paths(controller.path) {
            let run = try await AttuneProcess.run(["scan", "--json", "--duplicates"] + arguments)
            #expect(run.status == 0, "\(label): \(run.stderr)")
            let objects = try Self.objects(run)
            #expect(objects.count == 9, "\(label): three rounds of three reports: \(run.stdout)")
            #expect(objects.filter { $0["address"] as? String == AdvertisingController.a.description }.count == 6, "\(label)")
        }
    }

    @Test func namesFromTheAirAreEscapedInText() async throws {
        let controller = AdvertisingController()
        defer { controller.close() }
        for (label, arguments) in Self.paths(controller.path) {
            let run = try await AttuneProcess.run(["scan"] + arguments)
            #expect(run.status == 0, "\(label): \(run.stderr)")
            #expect(!run.stdout.contains("\u{1b}"), "\(label): no raw ESC reaches the terminal")
            #expect(!run.stdout.contains("\u{0}"), "\(label)")
            #expect(run.stdoutLines.count == 3, "\(label): the newline in the name makes no line of its own: \(run.stdout)")
            let a = try #require(run.stdoutLines.first { $0.hasPrefix(AdvertisingController.a.description) }, "\(label)")
            #expect(a.contains(#""Evil\x1b[2J\n\x00\"x\u{9b}\#u{FFFD}""#), "\(label): \(a)")
            #expect(run.stdoutLines.last?.hasSuffix("update") == true, "\(label)")
        }
    }

    @Test(arguments: ["inf", "nan", "1e300", "9.3e15", "-1", "0", "x"])
    func secondsOutOfRangeIsAUsageError(_ seconds: String) async throws {
        let run = try await AttuneProcess.run(["scan", "--controller", "unix:/nonexistent", "--seconds", seconds])
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("--seconds"))
    }
}
