/// Placeholder until the GATT client engine lands: reports every client vector as not
/// run, without failing. The client issue replaces this file with the real runner.
public struct ClientVectorRunner: ClientVectorRunning {
    public init() {}
    public func run(_ vector: ConformanceVector, databases: [String: AttributeDatabase]) -> ConformanceOutcome {
        .notRun("client role not implemented yet")
    }
}
