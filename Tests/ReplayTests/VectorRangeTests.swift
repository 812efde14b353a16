import ATT
import ATTPresentation
import FixtureTestSupport
import Foundation
import Replay
import Testing

/// Numbers in a vector file are range-checked when it loads, with the JSON path of the
/// field, and the client replay never converts one with a trap.
@Suite struct VectorRangeTests {
    /// A client vector (bare bearer, Read Long at `offset`) with `action` merged in.
    static func file(action: [String: Any] = [:], iut: [String: Any] = [:], expect: [String: Any] = [:],
                     extra: [String: Any] = [:]) throws -> Data {
        var iutAction: [String: Any] = ["call": "read_long_value", "handle": 3, "offset": 0]
        iutAction.merge(action) { $1 }
        var iutObject: [String: Any] = ["kind": "att_bearer_with_gatt_procedure", "rx_mtu": 512]
        iutObject.merge(iut) { $1 }
        var test: [String: Any] = ["id": "/T/1", "role": "client", "iut": iutObject, "iut_action": iutAction,
                                   "expect": expect, "exchange": [["dir": "iut->tester", "pdu": "0c03000000"]]]
        test.merge(extra) { $1 }
        let ok: [String: Any] = ["id": "/T/0", "role": "server", "exchange": [] as [Any]]
        return try JSONSerialization.data(withJSONObject: ["tests": [ok, test]])
    }

    /// The load error without its " (test at byte N)" ending, which is checked here: the
    /// second test starts after the first (an object of at least 40 bytes).
    static func loadError(_ data: Data) -> String? {
        do {
            _ = try ConformanceVector.load(from: data)
            return nil
        } catch {
            let text = error.description
            guard let at = text.range(of: " (test at byte ", options: .backwards), text.hasSuffix(")"),
                  let offset = Int(text[at.upperBound...].dropLast()), offset > 40 else { return "no byte offset: " + text }
            return String(text[..<at.lowerBound])
        }
    }

    @Test(arguments: [(["offset": 70000], "tests[1].iut_action.offset: 70000 is outside 0…65535"),
                      (["offset": -1], "tests[1].iut_action.offset: -1 is outside 0…65535"),
                      (["sign_counter": -1], "tests[1].iut_action.sign_counter: -1 is outside 0…4294967295"),
                      (["sign_counter": 4_294_967_296], "tests[1].iut_action.sign_counter: 4294967296 is outside 0…4294967295"),
                      (["handle": 65536], "tests[1].iut_action.handle: 65536 is outside 0…65535"),
                      (["start_handle": -5], "tests[1].iut_action.start_handle: -5 is outside 0…65535"),
                      (["end_handle": 1e300], "tests[1].iut_action.end_handle: 1e+300 is not a whole number in 0…65535"),
                      (["value_handle": 1.5], "tests[1].iut_action.value_handle: 1.5 is not a whole number in 0…65535"),
                      (["offset": "7"], "tests[1].iut_action.offset: \"7\" is not a whole number in 0…65535"),
                      (["offset": true], "tests[1].iut_action.offset: true is not a whole number in 0…65535"),
                      (["handles": [1, 70000]], "tests[1].iut_action.handles[1]: 70000 is outside 0…65535"),
                      (["value_length": 4, "value_hex": "010203"], "tests[1].iut_action.value_length: 4 but value_hex holds 3 bytes")]
            as [([String: any Sendable], String)])
    func actionFieldsOutOfRangeNameTheirPath(action: [String: any Sendable], message: String) throws {
        #expect(Self.loadError(try Self.file(action: action)) == "invalid vectors: " + message)
    }

    @Test func otherNumericFieldsAreCheckedToo() throws {
        #expect(Self.loadError(try Self.file(iut: ["rx_mtu": 22])) == "invalid vectors: tests[1].iut.rx_mtu: 22 is outside 23…65535")
        #expect(Self.loadError(try Self.file(iut: ["rx_mtu": 70000])) == "invalid vectors: tests[1].iut.rx_mtu: 70000 is outside 23…65535")
        #expect(Self.loadError(try Self.file(extra: ["effective_att_mtu": 0]))
                == "invalid vectors: tests[1].effective_att_mtu: 0 is outside 23…65535")
        #expect(Self.loadError(try Self.file(extra: ["tester_rx_mtu": -23]))
                == "invalid vectors: tests[1].tester_rx_mtu: -23 is outside 23…65535")
        #expect(Self.loadError(try Self.file(expect: ["value_length": -1]))
                == "invalid vectors: tests[1].expect.value_length: -1 is outside 0…65535")
        #expect(Self.loadError(try Self.file(expect: ["att_ecode": "0x1ff"]))
                == "invalid vectors: tests[1].expect.att_ecode: \"0x1ff\" is not an error code \"0x00\"…\"0xff\"")
        #expect(Self.loadError(try Self.file(action: ["offset": 65535, "sign_counter": 4_294_967_295])) == nil)
    }

    @Test func theProjectsVectorsAreInRange() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.vectors))
        #expect(Self.loadError(data) == nil)
    }

    /// A vector changed in code after loading (as tests do) reaches the replay with the
    /// out-of-range value: it fails the vector, it does not trap.
    @Test func outOfRangeActionsFailTheVectorWithoutATrap() throws {
        let vectors = try ConformanceVector.load(from: try Self.file())
        for (key, value) in [("offset", JSONValue.int(70000)), ("offset", .int(-1)), ("sign_counter", .int(-1)),
                             ("sign_counter", .int(1 << 32)), ("handle", .int(1 << 20))] {
            var vector = vectors[1]
            guard case .object(var fields)? = vector.action else { Issue.record("no action"); return }
            fields.removeAll { $0.0 == key }
            fields.append((key, value))
            if key == "sign_counter" {
                fields.removeAll { $0.0 == "call" }
                fields += [("call", .string("write_without_response")), ("signed", .bool(true)),
                           ("csrk_bytes_as_in_bluez", .string(String(repeating: "00", count: 16)))]
            }
            vector.action = .object(fields)
            let outcome = ClientVectorRunner().run(vector, databases: [:])
            #expect(outcome != .passed, "\(key) \(value)")
        }
    }
}
