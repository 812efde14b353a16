/// The server-role tests, in the order they run. Each group lives in its own file
/// (GAC+GAD discovery, GAR reads, GAW writes, GAN/GAI pushes, UNS unknown opcodes).
public enum ServerTestCatalog {
    /// Every server test, in run order: reads before writes, so a write that goes wrong
    /// cannot spoil a read test; the unknown opcodes, then the robustness probes last
    /// (they send what no client should, so they cannot spoil a test of the suite).
    public static var all: [ServerTestCase] {
        [exchangeMTU] + discoveryTests + readTests + writeTests + pushTests + unsupportedTests + robustnessProbes
    }

    /// The tests named, in catalog order; nil when an id is not in the catalog.
    public static func selecting(_ ids: [String]) -> [ServerTestCase]? {
        guard !ids.isEmpty else { return all }
        let known = Set(all.map(\.id))
        guard ids.allSatisfy(known.contains) else { return nil }
        let wanted = Set(ids)
        return all.filter { wanted.contains($0.id) }
    }
}
