/// An answer the tester judged: good, with what it carried, or already a verdict.
enum Judged<Value: Sendable>: Sendable {
    case ok(Value)
    case verdict(ConformanceTestVerdict)
}
