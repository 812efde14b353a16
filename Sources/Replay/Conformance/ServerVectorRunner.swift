import ATT
import ATTPresentation
import GATT

/// Runs a server-role vector against ``GATTServer`` over an in-memory bearer: tester PDUs
/// go in, and every PDU the server emits is compared byte for byte with the next
/// `iut->tester` step.
///
/// Stricter than the harness the vectors came from: an IUT PDU that no step expects is a
/// failure, also when it shows up where the tester is not reading or after the last step.
public struct ServerVectorRunner: Sendable {
    public init() {}

    public func run(_ vector: ConformanceVector, databases: [String: AttributeDatabase]) -> ConformanceOutcome {
        guard !vector.steps.isEmpty else { return .notRun("no ATT exchange in this vector") }
        guard let name = vector.database, let database = databases[name] else {
            return .notRun("database \(vector.database ?? "(none)") not loaded")
        }
        var configuration = GATTServerConfiguration()
        configuration.rxMTU = vector.rxMTU
        var server = GATTServer(database: database, configuration: configuration)
        let connection = ConnectionID(1)
        var out = GATTServerOutput()
        server.connect(connection, security: .none, peer: nil, at: .zero, into: &out)

        var pending: [[UInt8]] = []   // emitted, not yet matched
        var events: [GATTServerEvent] = []
        var now = MonotonicTime.zero
        func collect(_ out: inout GATTServerOutput) {
            for pdu in out.pdus where pdu.connection == connection { pending.append(Array(out.bytes(of: pdu))) }
            events += out.events
            out.removeAll()
        }
        collect(&out)

        for (index, step) in vector.steps.enumerated() {
            now = now + .milliseconds(1)
            switch step.direction {
            case .testerToIUT:
                if let extra = pending.first {
                    return .failed(ConformanceDivergence(step: index, expected: "no PDU before \(step.op)",
                                                         got: ConformanceDivergence.describe(extra)))
                }
                server.receive(step.pdu[...], from: connection, at: now, into: &out)
                collect(&out)
                if step.expectNoIUTPDU, let extra = pending.first {
                    return .failed(ConformanceDivergence(step: index, expected: "no answer to \(step.op)",
                                                         got: ConformanceDivergence.describe(extra)))
                }
            case .iutToTester:
                if step.triggeredByAction {
                    if let problem = perform(vector.action, on: &server, connection, now: now, into: &out) {
                        return .failed(ConformanceDivergence(step: index, expected: ConformanceDivergence.describe(step.pdu),
                                                             got: problem))
                    }
                    collect(&out)
                }
                guard !pending.isEmpty else {
                    return .failed(ConformanceDivergence(step: index, expected: ConformanceDivergence.describe(step.pdu),
                                                         got: "nothing"))
                }
                let got = pending.removeFirst()
                guard got == step.pdu else {
                    return .failed(ConformanceDivergence(step: index, expected: ConformanceDivergence.describe(step.pdu),
                                                         got: ConformanceDivergence.describe(got)))
                }
            }
        }
        if let extra = pending.first {
            return .failed(ConformanceDivergence(step: nil, expected: "no further PDU", got: ConformanceDivergence.describe(extra)))
        }
        if vector.expect?["confirmation_callback_invoked"]?.boolValue == true {
            let confirmed = events.contains {
                if case .indicationCompleted(_, _, .confirmed) = $0 { return true }
                return false
            }
            if !confirmed {
                return .failed(ConformanceDivergence(step: nil, expected: "indication confirmed to the application",
                                                     got: "no confirmation event"))
            }
        }
        return .passed
    }

    /// Invokes a server `iut_action`; returns a description of what went wrong, if anything.
    func perform(_ action: JSONValue?, on server: inout GATTServer, _ connection: ConnectionID,
                 now: MonotonicTime, into out: inout GATTServerOutput) -> String? {
        guard let action, let call = action["call"]?.stringValue else { return "no iut_action to invoke" }
        guard let handle = action["handle"]?.intValue, (1...0xFFFF).contains(handle),
              let value = action["value_hex"]?.stringValue.flatMap({ parseHex($0) }) else {
            return "iut_action \(call) lacks handle or value_hex"
        }
        let h = AttributeHandle(UInt16(handle))
        do {
            switch call {
            case "send_notification":
                let sent = try server.notify(value, characteristic: h, into: &out)
                return sent.contains(connection) ? nil : "no notification: client not subscribed"
            case "send_indication":
                let sent = try server.indicate(value, characteristic: h, at: now, into: &out)
                return sent[connection] != nil ? nil : "no indication: client not subscribed"
            default:
                return "unsupported server iut_action \(call)"
            }
        } catch {
            return "\(call) failed: \(error)"
        }
    }
}
