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

    /// All vectors of a `gatt-vectors.json` document.
    public static func load(from data: Data) throws(ConformanceError) -> [ConformanceVector] {
        var reader = JSONStreamReader(bytes: [UInt8](data))
        var out: [ConformanceVector] = []
        try read(&reader) { (v: ConformanceVector) throws(ConformanceError) in out.append(v) }
        return out
    }

    /// The vectors of a `gatt-vectors.json` file, one at a time as the file is read:
    /// memory holds one vector. A malformed file is reported with the JSON path and byte
    /// offset of the fault; the vectors before it were handed to `body` already.
    public static func forEach(inFile path: String,
                               _ body: (ConformanceVector) throws(ConformanceError) -> Void) throws(ConformanceError) {
        var reader: JSONStreamReader
        do { reader = try JSONStreamReader(path: path) } catch { throw .file("cannot read \(path)") }
        defer { reader.close() }
        try read(&reader, body)
    }

    static func read(_ reader: inout JSONStreamReader,
                     _ body: (ConformanceVector) throws(ConformanceError) -> Void) throws(ConformanceError) {
        var sawTests = false
        var failure: ConformanceError?
        do throws(JSONStreamReader.Failure) {
            reader.skipSpace()
            guard reader.peek() == 0x7B else {
                throw reader.fail("$", reader.peek() == nil ? "empty file: expected an object with a \"tests\" array"
                                                         : "expected an object with a \"tests\" array, found \(reader.found())")
            }
            try reader.object("$", depth: 0) { (r: inout JSONStreamReader, key: String, path: String) throws(JSONStreamReader.Failure) in
                guard key == "tests", failure == nil else {
                    _ = try r.value(path, depth: 1)
                    return
                }
                sawTests = true
                r.skipSpace()
                guard r.peek() == 0x5B else { throw r.fail(path, "expected an array of test vectors, found \(r.found())") }
                try r.array(path, depth: 1) { (r: inout JSONStreamReader, i: Int, p: String) throws(JSONStreamReader.Failure) in
                    r.skipSpace()
                    let start = r.offset
                    let test = try r.value(p, depth: 2)
                    guard failure == nil else { return }
                    do throws(ConformanceError) {
                        guard case .object = test else {
                            throw ConformanceError.invalidVectors("\(p) at byte \(start): expected a test vector object, not \(shown(test))")
                        }
                        try body(try vector(test, index: i, at: start))
                    } catch {
                        failure = error
                        throw JSONStreamReader.Failure(path: "", offset: 0, reason: "")
                    }
                }
            }
            try reader.end()
        } catch {
            if let failure { throw failure }
            throw .invalidVectors(error.description)
        }
        guard sawTests else { throw .invalidVectors("$: expected an object with a \"tests\" array") }
    }

    /// One vector from its JSON; problems name `tests[index]` and its byte offset.
    static func vector(_ t: JSONValue, index i: Int, at offset: Int) throws(ConformanceError) -> ConformanceVector {
        let place = "tests[\(i)] (at byte \(offset))"
        guard let id = t["id"]?.stringValue, let roleName = t["role"]?.stringValue, let role = Role(rawValue: roleName),
              let exchange = t["exchange"]?.arrayValue else {
            throw .invalidVectors("\(place): needs id, role and exchange")
        }
        do { try checkNumbers(t, index: i) } catch {
            if case let .invalidVectors(why) = error { throw .invalidVectors(why + " (test at byte \(offset))") }
            throw error
        }
        var steps: [Step] = []
        for (k, e) in exchange.enumerated() {
            guard let dirName = e["dir"]?.stringValue, let dir = Direction(rawValue: dirName),
                  let hex = e["pdu"]?.stringValue, let pdu = parseHex(hex) else {
                throw .invalidVectors("tests[\(i)].exchange[\(k)] (\(id), test at byte \(offset)): needs dir and hex pdu")
            }
            steps.append(Step(direction: dir, pdu: pdu, op: e["op"]?.stringValue ?? "",
                              phase: e["phase"]?.stringValue ?? "procedure",
                              expectNoIUTPDU: e["expect_no_iut_pdu"]?.boolValue ?? false,
                              triggeredByAction: e["trigger"]?.stringValue == "iut_action",
                              exceedsATTMTU: e["exceeds_att_mtu"]?.boolValue ?? false))
        }
        // checkNumbers has refused an rx_mtu outside 23…65535; absent, it is the
        // conventions' default.
        let rxMTU = t["iut"]?["rx_mtu"]?.intValue.flatMap(UInt16.init(exactly:)) ?? 512
        return ConformanceVector(
            id: id, role: role, database: t["database"]?.stringValue, rxMTU: rxMTU,
            iutKind: t["iut"]?["kind"]?.stringValue ?? "", securityLevel: t["iut"]?["security_level"]?.stringValue ?? "low",
            steps: steps, action: t["iut_action"], expect: t["expect"], raw: t)
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
