/// One server-role test of the catalog: its Bluetooth SIG id, what it checks, what the
/// IUT's database must hold for it to run, the Core spec section it judges by, and the
/// procedure itself (a function from what the test has exchanged to its next step).
public struct ServerTestCase: Sendable {
    /// The GATT test-suite id, e.g. `GATT/SR/GAR/BV-01-C`.
    public let id: String
    public let title: String
    /// What the IUT's database must hold, in words.
    public let precondition: String
    /// The Core 5.4 sections the verdict is judged by.
    public let specSection: String
    /// The test judges the tester's own Exchange MTU (which may happen once per link).
    let judgesMTUExchange: Bool
    let step: @Sendable (IUTProfile, Transcript) -> ProcedureStep

    init(_ id: String, _ title: String, precondition: String, spec: String, judgesMTUExchange: Bool = false,
         step: @escaping @Sendable (IUTProfile, Transcript) -> ProcedureStep) {
        self.id = id
        self.title = title
        self.precondition = precondition
        self.specSection = spec
        self.judgesMTUExchange = judgesMTUExchange
        self.step = step
    }

    /// The test group: GAC, GAD, GAR, GAW, GAN, GAI or UNS.
    public var group: String {
        let parts = id.split(separator: "/")
        return parts.count > 2 ? String(parts[2]) : ""
    }
}
