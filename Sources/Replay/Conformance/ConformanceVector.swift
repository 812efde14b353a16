import ATT
import ATTPresentation
import Foundation
import GATT

/// One byte-exact ATT exchange from `gatt-vectors.json`, named after its SIG test case.
/// The file's `conventions` object defines the fields; this type keeps what a runner needs
/// and leaves the rest in ``raw``.
public struct ConformanceVector: Sendable {
    public enum Role: String, Sendable { case server, client }
    public enum Direction: String, Sendable {
        case testerToIUT = "tester->iut"
        case iutToTester = "iut->tester"
    }

    /// One PDU of the exchange.
    public struct Step: Sendable {
        public var direction: Direction
        public var pdu: [UInt8]
        /// "ATT_READ_REQ" and the like; informative.
        public var op: String
        /// "setup" or "procedure".
        public var phase: String
        /// On a tester PDU: the IUT must stay silent.
        public var expectNoIUTPDU: Bool
        /// On an IUT PDU: it results from invoking ``ConformanceVector/action``.
        public var triggeredByAction: Bool
        public var exceedsATTMTU: Bool
    }

    public var id: String
    public var role: Role
    public var database: String?
    /// The IUT's receive MTU.
    public var rxMTU: UInt16
    /// `iut.kind`: gatt_server, gatt_client or att_bearer_with_gatt_procedure.
    public var iutKind: String
    public var securityLevel: String
    public var steps: [Step]
    /// `iut_action`, as JSON.
    public var action: JSONValue?
    /// `expect`, as JSON.
    public var expect: JSONValue?
    /// The whole entry, for runners that need more.
    public var raw: JSONValue

    /// All vectors of a `gatt-vectors.json` file.
    public static func load(from data: Data) throws(ConformanceError) -> [ConformanceVector] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let tests = root["tests"] as? [[String: Any]] else {
            throw .invalidVectors("expected an object with a \"tests\" array")
        }
        var out: [ConformanceVector] = []
        for (i, t) in tests.enumerated() {
            guard let id = t["id"] as? String, let roleName = t["role"] as? String, let role = Role(rawValue: roleName),
                  let exchange = t["exchange"] as? [[String: Any]] else {
                throw .invalidVectors("tests[\(i)]: needs id, role and exchange")
            }
            let raw = JSONValue(foundation: t)
            try checkNumbers(raw, index: i)
            var steps: [Step] = []
            for (k, e) in exchange.enumerated() {
                guard let dirName = e["dir"] as? String, let dir = Direction(rawValue: dirName),
                      let hex = e["pdu"] as? String, let pdu = parseHex(hex) else {
                    throw .invalidVectors("tests[\(i)].exchange[\(k)] (\(id)): needs dir and hex pdu")
                }
                steps.append(Step(direction: dir, pdu: pdu, op: (e["op"] as? String) ?? "",
                                  phase: (e["phase"] as? String) ?? "procedure",
                                  expectNoIUTPDU: (e["expect_no_iut_pdu"] as? Bool) ?? false,
                                  triggeredByAction: (e["trigger"] as? String) == "iut_action",
                                  exceedsATTMTU: (e["exceeds_att_mtu"] as? Bool) ?? false))
            }
            let iut = t["iut"] as? [String: Any] ?? [:]
            out.append(ConformanceVector(
                id: id, role: role, database: t["database"] as? String,
                rxMTU: raw["iut"]?["rx_mtu"]?.intValue.flatMap(UInt16.init(exactly:)) ?? 512, iutKind: (iut["kind"] as? String) ?? "",
                securityLevel: (iut["security_level"] as? String) ?? "low", steps: steps,
                action: t["iut_action"].map(JSONValue.init(foundation:)),
                expect: t["expect"].map(JSONValue.init(foundation:)), raw: raw))
        }
        return out
    }
}

/// Why vectors or databases could not be loaded.
public enum ConformanceError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidVectors(String)
    case database(DatabaseError)
    case file(String)

    public var description: String {
        switch self {
        case .invalidVectors(let why): "invalid vectors: \(why)"
        case .database(let e): "invalid databases: \(e)"
        case .file(let why): why
        }
    }
}
