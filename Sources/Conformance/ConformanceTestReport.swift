/// What one test ended with: its id, verdict and the PDUs the verdict rests on.
public struct ConformanceTestReport: Hashable, Sendable {
    /// The Bluetooth SIG test-suite id, e.g. `GATT/SR/GAR/BV-01-C`.
    public var id: String
    public var verdict: ConformanceTestVerdict
    /// Every ATT PDU the verdict rests on, in order. A pass or a fail always has at least one.
    public var exchange: [ExchangedPDU]

    public init(id: String, verdict: ConformanceTestVerdict, exchange: [ExchangedPDU]) {
        self.id = id
        self.verdict = verdict
        self.exchange = exchange
    }
}
