import SensorDecoding
import Testing
@testable import GatewayConfig

/// `changes(from:)` tells a SIGHUP reload which devices to leave running.
@Suite struct ReloadDiffTests {
    @Test func devicesAddedRemovedChangedUnchanged() throws {
        let old = try load(issueSample)
        let new = try load(issueSample
            .replacingOccurrences(of: "{characteristic: \"2a19\", read: 60s", with: "{characteristic: \"2a19\", read: 30s")
            .replacingOccurrences(of: "  - name: fridge\n", with: "  - name: porch\n    address: \"00:00:00:00:00:09\"\n  - name: freezer\n"))
        let changes = new.changes(from: old)
        #expect(changes.added == ["porch", "freezer"])
        #expect(changes.removed == ["fridge"])
        #expect(changes.changed == ["hr1"])
        #expect(changes.unchanged == [])
        #expect(!changes.mqttChanged && !changes.adaptersChanged && !changes.scanChanged && !changes.discoverUnknownChanged)
        #expect(!changes.isEmpty)
    }

    @Test func sameConfigChangesNothing() throws {
        let a = try load(issueSample)
        // Comments, order of keys and flow versus block style make no difference.
        let b = try load(issueSample.replacingOccurrences(of: "# BTHome encryption key", with: "")
            .replacingOccurrences(of: "  - name: hr1\n    address: \"F0:F1:F2:F3:F4:F5\"\n",
                                  with: "  - address: \"F0:F1:F2:F3:F4:F5\"\n    name: hr1\n"))
        let changes = b.changes(from: a)
        #expect(changes.unchanged == ["fridge", "hr1"])
        #expect(changes.isEmpty)
    }

    @Test func sectionChanges() throws {
        let a = try load(issueSample)
        let b = try load(issueSample.replacingOccurrences(of: "max_connections: 5", with: "max_connections: 4")
            .replacingOccurrences(of: "mode: passive", with: "mode: active")
            .replacingOccurrences(of: "discover_unknown: false", with: "discover_unknown: true")
            .replacingOccurrences(of: "client_id: attune-kitchen", with: "client_id: attune-hall"))
        let changes = b.changes(from: a)
        #expect(changes.mqttChanged && changes.adaptersChanged && changes.scanChanged && changes.discoverUnknownChanged)
        #expect(changes.unchanged == ["fridge", "hr1"])
    }

    /// A password file whose contents changed restarts the broker session, and nothing else.
    @Test func changedPasswordFileChangesMQTT() throws {
        let c = try load(SecretsTests.withFile)
        let a = try c.resolveSecrets { _, _ throws(FileReadError) in Array("one".utf8) }
        let b = try c.resolveSecrets { _, _ throws(FileReadError) in Array("two".utf8) }
        let changes = b.changes(from: a)
        #expect(changes.mqttChanged && changes.unchanged == ["f"] && changes.changed.isEmpty)
    }
}
