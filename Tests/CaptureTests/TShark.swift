import Foundation

/// One ATT PDU as tshark dissects it.
struct TSharkATT: Equatable {
    var frame: Int
    var opcode: UInt8
    /// Every btatt.handle field tshark shows, including handles it infers from the request.
    var handles: [UInt16]
    /// btatt.value, hex.
    var value: String
    /// The whole ATT PDU as tshark reassembled it, hex.
    var raw: String
    /// frame.time_epoch in microseconds.
    var microseconds: Int64
    /// bthci_acl.chandle
    var connectionHandle: UInt16
    /// From hci_h4.direction (0 sent) or hci_mon.opcode (4 ACL TX); nil when neither is present.
    var sent: Bool?
    /// hci_mon.adapter_id, 0 when absent.
    var controller: UInt16
}

/// Runs the installed tshark, the independent decoder the captures are checked against.
enum TShark {
    static var path: String? {
        for candidate in ["/usr/bin/tshark", "/usr/local/bin/tshark"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }

    static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path ?? "/usr/bin/tshark")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// Every ATT PDU in a capture, in frame order.
    static func attPDUs(_ file: String) throws -> [TSharkATT] {
        let fields = try run(["-r", file, "-Y", "btatt", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                              "-e", "frame.number", "-e", "btatt.opcode", "-e", "btatt.handle", "-e", "btatt.value",
                              "-e", "frame.time_epoch", "-e", "bthci_acl.chandle", "-e", "hci_h4.direction",
                              "-e", "hci_mon.opcode", "-e", "hci_mon.adapter_id"])
        var pdus: [TSharkATT] = []
        for line in String(decoding: fields, as: UTF8.self).split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 9, let frame = Int(columns[0]) else { continue }
            // "1796042144.068802000": whole seconds, then nanoseconds.
            let time = columns[4].split(separator: ".")
            let micros = (Int64(time.first ?? "0") ?? 0) * 1_000_000 + (Int64((time.count > 1 ? time[1] : "0").prefix(6)) ?? 0)
            let handle = UInt16(columns[5].dropFirst(2), radix: 16) ?? 0xFFFF
            var sent: Bool?
            if let d = UInt8(columns[6].dropFirst(2), radix: 16) { sent = d == 0 }
            if let op = UInt16(columns[7]) { sent = op == 4 }
            let opcode = UInt8(columns[1].dropFirst(2), radix: 16) ?? 0
            let handles = columns[2].split(separator: ",").compactMap { UInt16($0.dropFirst(2), radix: 16) }
            pdus.append(TSharkATT(frame: frame, opcode: opcode, handles: handles,
                                  value: columns[3].replacingOccurrences(of: ",", with: ""), raw: "",
                                  microseconds: micros, connectionHandle: handle, sent: sent,
                                  controller: UInt16(columns[8]) ?? 0))
        }
        let json = try run(["-r", file, "-Y", "btatt", "-T", "json", "-x", "--no-duplicate-keys", "-J", "frame btatt"])
        guard let packets = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] else { return pdus }
        var raws: [Int: String] = [:]
        for packet in packets {
            guard let layers = (packet["_source"] as? [String: Any])?["layers"] as? [String: Any],
                  let frame = (layers["frame"] as? [String: Any])?["frame.number"] as? String,
                  let raw = layers["btatt_raw"] as? [Any], let hex = raw.first as? String
            else { continue }
            raws[Int(frame) ?? -1] = hex
        }
        for i in pdus.indices { pdus[i].raw = raws[pdus[i].frame] ?? "" }
        return pdus
    }
}
