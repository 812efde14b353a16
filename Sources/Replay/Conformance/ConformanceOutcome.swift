import ATT
import ATTPresentation
import GATT

/// The result of one vector.
public enum ConformanceOutcome: Hashable, Sendable {
    case passed
    /// The first divergence from the vector.
    case failed(ConformanceDivergence)
    /// Not run, and not counted as a failure (e.g. the client role before it exists).
    case notRun(String)
}

/// Where and how a run left the vector.
public struct ConformanceDivergence: Hashable, Sendable, CustomStringConvertible {
    /// Index of the exchange step, or nil for end-of-run checks.
    public var step: Int?
    /// What the vector expected, decoded (bytes and dissector line).
    public var expected: String
    /// What the implementation did.
    public var got: String

    public init(step: Int?, expected: String, got: String) {
        self.step = step
        self.expected = expected
        self.got = got
    }

    public var description: String {
        let at = step.map { "step \($0)" } ?? "end"
        return "\(at): expected \(expected) vs got \(got)"
    }

    /// "0b0102 (Read Response value 0102)": hex and the decoded PDU.
    public static func describe(_ pdu: some Collection<UInt8>) -> String {
        let bytes = Array(pdu)
        let decoded: String
        do { decoded = try ATTPDU.decode(bytes).description } catch { decoded = "undecodable: \(error)" }
        return "\(hexString(bytes)) (\(decoded))"
    }
}

/// One line of a report.
public struct ConformanceResult: Hashable, Sendable {
    public var id: String
    public var role: ConformanceVector.Role
    public var outcome: ConformanceOutcome

    /// "PASS id", "FAIL id: …", or "NOT RUN id: reason".
    public var line: String {
        switch outcome {
        case .passed: "PASS \(id)"
        case .failed(let d): "FAIL \(id): \(d)"
        case .notRun(let why): "NOT RUN \(id): \(why)"
        }
    }

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("role", .string(role.rawValue))]
        switch outcome {
        case .passed: fields.append(("status", .string("pass")))
        case .failed(let d):
            fields.append(("status", .string("fail")))
            fields.append(("step", d.step.map { .int($0) } ?? .null))
            fields.append(("expected", .string(d.expected)))
            fields.append(("got", .string(d.got)))
        case .notRun(let why):
            fields.append(("status", .string("not_run")))
            fields.append(("reason", .string(why)))
        }
        return .object(fields)
    }
}
