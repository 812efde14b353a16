import ATT
import ATTPresentation
import Capture
import HCI

/// `attune decode FILE`: the ATT traffic of a btsnoop, pcap or pcapng capture.
enum DecodeCommand: CLICommand {
    static let name = "decode"
    static let summary = "decode the ATT traffic in a btsnoop, pcap or pcapng capture"
    static let usage = """
        usage: attune decode [--json] [--summary] FILE

        Reads a capture (btsnoop 1001/1002/2001, pcap or pcapng with link type 201 or 254),
        reassembles ACL into L2CAP frames per controller, connection and direction, and
        prints every ATT PDU with the codec the stack itself uses:
          seconds since the first record, direction, hciN, connection handle, CID, PDU
        Connections and disconnections the capture shows are printed as they happen.

          --json     one JSON object per ATT PDU:
                     {"ts": unix seconds, "dir": "sent"|"received", "controller": N,
                      "conn": handle, "cid": 4, "att": {"opcode", "name", ...fields}}
                     plus "peer" and "role" when the capture showed the connection made,
                     and "error"/"offset" instead of fields for a PDU that does not decode
          --summary  count the ATT PDUs per opcode instead of listing them

        A damaged capture prints everything before the damage, then the record index and
        byte offset of the damage; the exit status is then 1.
        """
    static let flags: Set<String> = ["json", "summary"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw CLIError.usage("give exactly one capture file")
        }
        let json = arguments.flag("json")
        let summary = arguments.flag("summary")
        var reader: CaptureReader
        do {
            reader = try CaptureReader(path: path)
        } catch {
            throw CLIError.failure("\(path): \(error)")
        }
        var decoder = CaptureDecoder()
        var counts: [UInt8: Int] = [:]
        var total = 0, malformedATT = 0, drops = 0, malformed = 0, otherFrames = 0
        var start: Int64?
        var failure: CaptureError?

        func show(_ event: CaptureEvent, _ record: CaptureRecord) {
            switch event {
            case let .frame(frame):
                guard frame.channel == .attribute else {
                    otherFrames += 1
                    return
                }
                total += 1
                let decoded: Result<ATTPDU, ATTDecodingError>
                do { decoded = .success(try ATTPDU.decode(frame.payload)) } catch { decoded = .failure(error) }
                if case .failure = decoded { malformedATT += 1 }
                if summary {
                    if let opcode = frame.payload.first { counts[opcode, default: 0] += 1 }
                    return
                }
                if json {
                    Output.data(jsonLine(frame, decoded).description)
                } else {
                    let text: String
                    switch decoded {
                    case let .success(pdu): text = pdu.description
                    case let .failure(error): text = "malformed ATT PDU \(hexString(frame.payload)): \(error)"
                    }
                    Output.data(prefix(frame.timestamp - (start ?? frame.timestamp), frame.direction.description,
                                       frame.controller, frame.connectionHandle) + "cid 0x0004 ATT  " + text)
                }
            case let .connected(c):
                guard !summary, !json else { return }
                Output.data(prefix(c.connectedAt - (start ?? c.connectedAt), "", c.controller, c.handle)
                            + "connected to \(c.peerAddress) (\(c.peerAddressType)) as \(c.role)")
            case let .disconnected(controller, handle, reason, _):
                guard !summary, !json else { return }
                Output.data(prefix(record.timestamp - (start ?? record.timestamp), "", controller, handle)
                            + "disconnected, reason \(reason) \(reason.name)")
            case let .dropped(index, controller, handle, direction, reason):
                drops += 1
                Output.status("record \(index): hci\(controller) conn 0x\(hexString(handle, digits: 4)) \(direction): ACL dropped: \(reason)")
            case let .malformed(index, error):
                malformed += 1
                Output.status("record \(index): malformed: \(error)")
            }
        }

        do {
            while let record = try reader.next() {
                if start == nil { start = record.timestamp }
                var displaced: CaptureEvent?
                let event = decoder.process(record, dropped: &displaced)
                if let displaced { show(displaced, record) }
                if let event { show(event, record) }
            }
        } catch {
            failure = error
        }

        if summary {
            if json {
                let byOpcode = counts.keys.sorted().map { op -> JSONValue in
                    .object([("opcode", .int(Int(op))), ("name", .string(ATTOpcode(op).name)), ("count", .int(counts[op]!))])
                }
                Output.data(JSONValue.object([
                    ("records", .int(reader.recordCount)), ("att_pdus", .int(total)), ("malformed_att", .int(malformedATT)),
                    ("other_l2cap_frames", .int(otherFrames)), ("acl_drops", .int(drops)), ("malformed_hci", .int(malformed)),
                    ("opcodes", .array(byOpcode)),
                ]).description)
            } else {
                for op in counts.keys.sorted() {
                    let name = ATTOpcode(op).name
                    Output.data(name.padding(36) + "0x" + hexString(op, digits: 2) + "  " + String(counts[op]!))
                }
                Output.data("total".padding(42) + String(total)
                            + "  (\(reader.recordCount) records, \(malformedATT) malformed ATT, \(otherFrames) other L2CAP frames, \(drops) ACL drops)")
            }
        }
        if let failure {
            Output.error("\(path): \(failure)")
            return 1
        }
        return 0
    }

    static func prefix(_ micros: Int64, _ direction: String, _ controller: UInt16, _ handle: UInt16) -> String {
        let sign = micros < 0 ? "-" : ""
        let m = micros.magnitude
        let fraction = String(m % 1_000_000)
        let time = sign + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
        return time.leftPadding(12) + "  " + direction.padding(9) + "hci\(controller)  0x\(hexString(handle, digits: 4))  "
    }

    static func jsonLine(_ frame: CapturedL2CAPFrame, _ decoded: Result<ATTPDU, ATTDecodingError>) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("ts", .double(Double(frame.timestamp) / 1_000_000)),
            ("dir", .string(frame.direction.description)),
            ("controller", .int(Int(frame.controller))),
            ("conn", .int(Int(frame.connectionHandle))),
            ("cid", .int(Int(frame.channel.rawValue))),
        ]
        if let c = frame.connection {
            fields.append(("peer", .string(c.peerAddress.description)))
            fields.append(("role", .string(c.role.description)))
        }
        switch decoded {
        case let .success(pdu):
            fields.append(("att", pdu.json))
        case let .failure(error):
            let opcode = frame.payload.first ?? 0
            fields.append(("att", .object([
                ("opcode", .int(Int(opcode))), ("name", .string(ATTOpcode(opcode).name)),
                ("bytes", .hex(frame.payload)), ("error", .string(error.description)),
                ("offset", .int(error.offset)),
            ])))
        }
        return .object(fields)
    }

}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
    func leftPadding(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
