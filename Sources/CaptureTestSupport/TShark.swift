import Foundation

/// One ATT PDU as tshark dissects it.
public struct TSharkATT: Equatable, Sendable {
    public var frame: Int
    public var opcode: UInt8
    /// Every btatt.handle field tshark shows, including handles it infers from the request.
    public var handles: [UInt16]
    /// btatt.value, hex.
    public var value: String
    /// The whole ATT PDU as tshark reassembled it, hex.
    public var raw: String
    /// frame.time_epoch in microseconds.
    public var microseconds: Int64
    /// bthci_acl.chandle
    public var connectionHandle: UInt16
    /// From hci_h4.direction or hci_h1.direction (0 sent) or hci_mon.opcode (4 ACL TX); nil when none is present.
    public var sent: Bool?
    /// hci_mon.adapter_id, 0 when absent.
    public var controller: UInt16
}

/// Runs the installed tshark, the independent decoder the captures are checked against:
/// the one runner of every test target that compares our decoding with tshark's.
public enum TShark {
    /// The installed tshark, or nil when there is none (.ci/run and Scripts/setup.sh install it).
    public static var path: String? {
        for candidate in ["/usr/bin/tshark", "/usr/local/bin/tshark"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }

    /// tshark's standard output for `arguments`; its standard error is dropped.
    public static func run(_ arguments: [String]) throws -> Data {
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

    /// Every ATT PDU in a capture, in frame order. Without `bytes`, `raw` stays empty and
    /// tshark reads the file once instead of twice.
    public static func attPDUs(_ file: String, bytes: Bool = true) throws -> [TSharkATT] {
        let fields = try run(["-r", file, "-Y", "btatt", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                              "-e", "frame.number", "-e", "btatt.opcode", "-e", "btatt.handle", "-e", "btatt.value",
                              "-e", "frame.time_epoch", "-e", "bthci_acl.chandle", "-e", "hci_h4.direction",
                              "-e", "hci_mon.opcode", "-e", "hci_mon.adapter_id", "-e", "hci_h1.direction"])
        var pdus: [TSharkATT] = []
        for line in String(decoding: fields, as: UTF8.self).split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 10, let frame = Int(columns[0]) else { continue }
            // "1796042144.068802000": whole seconds, then nanoseconds.
            let time = columns[4].split(separator: ".")
            let micros = (Int64(time.first ?? "0") ?? 0) * 1_000_000 + (Int64((time.count > 1 ? time[1] : "0").prefix(6)) ?? 0)
            let handle = UInt16(columns[5].dropFirst(2), radix: 16) ?? 0xFFFF
            var sent: Bool?
            if let d = UInt8(columns[6].dropFirst(2), radix: 16) { sent = d == 0 }
            if let op = UInt16(columns[7]) { sent = op == 4 }
            if let d = UInt8(columns[9].dropFirst(2), radix: 16) ?? UInt8(columns[9]) { sent = d == 0 }
            let opcode = UInt8(columns[1].dropFirst(2), radix: 16) ?? 0
            let handles = columns[2].split(separator: ",").compactMap { UInt16($0.dropFirst(2), radix: 16) }
            pdus.append(TSharkATT(frame: frame, opcode: opcode, handles: handles,
                                  value: columns[3].replacingOccurrences(of: ",", with: ""), raw: "",
                                  microseconds: micros, connectionHandle: handle, sent: sent,
                                  controller: UInt16(columns[8]) ?? 0))
        }
        guard bytes else { return pdus }
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
