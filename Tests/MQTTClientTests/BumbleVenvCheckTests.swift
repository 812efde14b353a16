import Foundation
import MQTTTestSupport
import Testing

/// The gateway's Bumble labs (MQTTTestSupport) check for the venv Scripts/setup.sh makes;
/// they never make it beside the tests.
@Suite struct BumbleVenvCheckTests {
    static var pythonAvailable: Bool {
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") } ?? false
    }

    @Test("no Bumble venv: the check fails saying to run Scripts/setup.sh, and creates no venv",
          .enabled(if: pythonAvailable, "python3 is missing: the Bumble check cannot run"))
    func missingVenv() throws {
        let venv = FileManager.default.temporaryDirectory.appendingPathComponent("attune-no-venv-\(UUID().uuidString)").path
        let error = try #require(throws: BumbleVenv.Missing.self) { try BumbleVenv.check(venv: venv) }
        #expect(error.description.contains("run Scripts/setup.sh"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: venv), "the check made a venv")
    }
}
