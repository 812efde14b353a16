import Foundation
import Testing

extension BumbleCLITests {
    static let including = "7A7E0010-5D4C-4F8E-9A64-0C3F1E2B6A10"
    static let secondary = "7A7E0011-5D4C-4F8E-9A64-0C3F1E2B6A10"

    /// Bumble's peripheral has a primary service whose only content is an include of a
    /// secondary 128-bit service: `discover --json` shows the include, with the UUID read
    /// from the included declaration, and the secondary service with `"primary": false`;
    /// its characteristic is read, written and subscribed to by handle. The old discover
    /// dropped the secondary service, and by-handle commands failed without a PDU.
    @Test(.timeLimit(.minutes(20)))
    func secondaryServiceThroughItsIncludeAgainstBumble() async throws {
        let discovered = try await Self.inFreshLab { lab in
            try await AttuneProcess.run(["discover", lab.address, "--random", "--json", "--transport", lab.transport], timeout: 60)
        }
        #expect(discovered.status == 0, "stderr: \(discovered.stderr)")
        let tree = try #require(discovered.stdout.jsonObject)
        let services = try #require(tree["services"] as? [[String: Any]])
        let including = try #require(services.first { ($0["uuid"] as? String)?.uppercased() == Self.including })
        let includes = try #require(including["includes"] as? [[String: Any]])
        #expect(includes.map { ($0["uuid"] as? String)?.uppercased() } == [Self.secondary])
        let secondary = try #require(services.first { ($0["uuid"] as? String)?.uppercased() == Self.secondary })
        #expect(secondary["primary"] as? Bool == false)
        #expect(includes.first?["start"] as? Int == secondary["start"] as? Int)
        let characteristic = try #require((secondary["characteristics"] as? [[String: Any]])?.first)
        let value = try #require(characteristic["value"] as? Int)
        let handle = String(format: "0x%04x", value)

        let read = try await Self.inFreshLab { lab in
            try await AttuneProcess.run(["read", lab.address, handle, "--random", "--transport", lab.transport], timeout: 60)
        }
        #expect(read.status == 0 && read.stdoutLines == ["5e"], "stdout: \(read.stdout) stderr: \(read.stderr)")
        let written = try await Self.inFreshLab { lab in
            try await AttuneProcess.run(["write", lab.address, handle, "77", "--random", "--transport", lab.transport], timeout: 60)
        }
        #expect(written.status == 0, "stderr: \(written.stderr)")
        let subscribed = try await Self.inFreshLab { lab in
            try await AttuneProcess.run(["subscribe", lab.address, handle, "--count", "3", "--random", "--transport", lab.transport],
                                        timeout: 60)
        }
        #expect(subscribed.status == 0 && subscribed.stdoutLines.count == 3, "stderr: \(subscribed.stderr)")
    }

    /// Runs `body` against a lab of its own: Bumble's peripheral takes one connection.
    static func inFreshLab<T>(_ body: (BumbleLab) async throws -> T) async throws -> T {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        return try await body(lab)
    }
}
