import ATTPresentation
import GATT
import BluetoothCore

extension ConformanceVector {
    /// Every numeric field a vector may carry, with the values it can take: handles,
    /// offsets and lengths are 16-bit on the wire, MTUs at least 23 (Vol 3 Part F §3.2.8),
    /// and the sign counter is 32-bit (Vol 3 Part H §2.4.5). A value outside its range is
    /// an invalid vector, reported with its JSON path, rather than a value clamped or
    /// converted with a trap.
    static let numericFields: [(path: [String], range: ClosedRange<Int>)] = [
        (["effective_att_mtu"], 23...0xFFFF),
        (["tester_rx_mtu"], 23...0xFFFF),
        (["iut", "rx_mtu"], 23...0xFFFF),
        (["iut_action", "handle"], 0...0xFFFF),
        (["iut_action", "value_handle"], 0...0xFFFF),
        (["iut_action", "start_handle"], 0...0xFFFF),
        (["iut_action", "end_handle"], 0...0xFFFF),
        (["iut_action", "offset"], 0...0xFFFF),
        (["iut_action", "value_length"], 0...0xFFFF),
        (["iut_action", "sign_counter"], 0...Int(UInt32.max)),
        (["expect", "value_length"], 0...0xFFFF),
    ]

    /// Checks the numeric fields of `tests[index]`; the first problem is thrown as
    /// `tests[3].iut_action.offset: 70000 is outside 0…65535`. `null` is a field left
    /// unknown (the file has `"effective_att_mtu": null` where no MTU was settled), as
    /// if it were absent.
    static func checkNumbers(_ test: JSONValue, index: Int) throws(ConformanceError) {
        let prefix = "tests[\(index)]"
        for (path, range) in numericFields {
            var value: JSONValue? = test
            for key in path { value = value?[key] }
            guard let value, value != .null else { continue }
            try check(value, range, at: prefix + "." + path.joined(separator: "."))
        }
        if let handles = test["iut_action"]?["handles"] {
            guard let list = handles.arrayValue else {
                throw .invalidVectors("\(prefix).iut_action.handles: expected an array of handles")
            }
            for (k, h) in list.enumerated() { try check(h, 0...0xFFFF, at: "\(prefix).iut_action.handles[\(k)]") }
        }
        // A length that disagrees with the bytes it describes would make the vector test
        // something other than what it says.
        for object in ["iut_action", "expect"] {
            guard let length = test[object]?["value_length"]?.intValue, let hex = test[object]?["value_hex"]?.stringValue,
                  let bytes = parseHex(hex), bytes.count != length else { continue }
            throw .invalidVectors("\(prefix).\(object).value_length: \(length) but value_hex holds \(bytes.count) bytes")
        }
        if let code = test["expect"]?["att_ecode"] {
            guard let text = code.stringValue, text.count == 4, text.hasPrefix("0x"), UInt8(text.dropFirst(2), radix: 16) != nil else {
                throw .invalidVectors("\(prefix).expect.att_ecode: \(Self.shown(code)) is not an error code \"0x00\"…\"0xff\"")
            }
        }
    }

    static func check(_ value: JSONValue, _ range: ClosedRange<Int>, at path: String) throws(ConformanceError) {
        guard case .int(let n) = value else {
            throw .invalidVectors("\(path): \(shown(value)) is not a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        guard range.contains(n) else {
            throw .invalidVectors("\(path): \(n) is outside \(range.lowerBound)…\(range.upperBound)")
        }
    }

    /// A JSON value as the file has it, cut short: an error message stays one line.
    static func shown(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
