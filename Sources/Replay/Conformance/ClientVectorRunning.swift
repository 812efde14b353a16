import GATT

/// Runs client-role vectors: the GATT client engine implements this in
/// `ClientVectorRunner.swift`, and ``ConformanceSuite`` uses ``ClientVectorRunner``.
public protocol ClientVectorRunning: Sendable {
    /// Runs one client vector. `databases` are the databases the tester emulates, loaded
    /// as written (CCCDs as stored attributes).
    func run(_ vector: ConformanceVector, databases: [String: AttributeDatabase]) -> ConformanceOutcome
}
