// fuzz-modules: CCrypto BluetoothCore BluetoothCrypto ATT ATTPresentation GATT HCI Capture Replay
// libFuzzer target for the capture readers and the extraction pipeline: any bytes must
// end in records plus at most one typed error, never a trap or a hang; every HCI event
// and advertising report must decode or fail softly; and btsnoop and pcap files re-read
// identically after being written back in their own format. Replay's inputs come from
// captures too: conversations, procedure inference, the rebuilt database and both replays
// run on whatever decodes, and so do the capture-backed peripheral's script and the
// captured outcomes a live replay compares with.
import ATT
import Capture
import Replay
import ATTPresentation
import Foundation
import GATT
import HCI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCapture(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard var reader = try? CaptureReader(bytes: bytes, maximumRecordLength: 1 << 16) else { return 0 }
    let format = reader.format
    var records: [CaptureRecord] = []
    var decoder = CaptureDecoder()
    do {
        while let record = try reader.next() {
            records.append(record)
            guard records.count < 100_000 else { fatalError("more records than bytes allow") }
            if record.packetType == .event, let event = try? HCIEvent(decoding: record.payload) {
                switch event {
                case let .leAdvertisingReport(reports):
                    for r in reports { for s in AdvertisingData(decoding: r.data).structures { _ = s.value } }
                case let .leExtendedAdvertisingReport(reports):
                    for r in reports { for s in AdvertisingData(decoding: r.data).structures { _ = s.value } }
                default: break
                }
            }
            if case let .frame(frame)? = decoder.process(record), frame.channel == .attribute,
               let pdu = try? ATTPDU.decode(frame.payload) {
                _ = pdu.description
            }
        }
        if (try? reader.next()) != nil { fatalError("reader yielded a record after its end") }
    } catch {
        _ = error.description
        if (try? reader.next()) != nil { fatalError("reader yielded a record after an error") }
    }
    // Write back in the same format and read again.
    var writer = try! CaptureWriter(output: MemoryOutput(), format: format)
    let kept = records.filter { writer.canWrite($0) }
    for r in kept { try! writer.write(r) }
    let written = try! writer.finish().bytes
    guard var again = try? CaptureReader(bytes: written, maximumRecordLength: 1 << 17) else {
        fatalError("cannot re-read what was written")
    }
    var index = 0
    while let r = try! again.next() {
        if case .pcapng = format {
            // Timestamps come back exactly, whatever if_tsresol and if_tsoffset they were read with.
            guard r.timestamp == kept[index].timestamp else {
                fatalError("record \(index)'s timestamp changed in a round trip: \(kept[index].timestamp) → \(r.timestamp)")
            }
            index += 1
            continue
        }
        let o = kept[index]
        guard r.kind == o.kind, r.direction == o.direction, r.controller == o.controller, r.timestamp == o.timestamp,
              r.payload == o.payload, r.originalLength == o.originalLength
        else { fatalError("record \(index) changed in a round trip: \(o) → \(r)") }
        index += 1
    }
    guard index == kept.count else { fatalError("round trip lost records: \(kept.count) → \(index)") }
    replay(bytes)
    return 0
}

func replay(_ bytes: [UInt8]) {
    guard let reader = try? CaptureReader(bytes: bytes, maximumRecordLength: 1 << 16),
          let conversations = try? ATTConversationCollector.conversations(in: reader), !conversations.isEmpty
    else { return }
    for c in conversations {
        _ = c.transactions
        _ = c.localRole
        for p in ClientProcedureInference.procedures(in: c) { _ = p.description }
    }
    _ = ClientReplay.run(conversations)
    let rebuilt = CapturedDatabase(conversations: conversations)
    guard let json = try? JSONSerialization.jsonObject(with: Data(rebuilt.json.description.utf8)) else {
        fatalError("rebuilt database JSON does not parse")
    }
    // The database built directly must be the one the JSON loader makes of the same capture.
    let loaded = try? DatabaseJSON.database(from: json)
    let direct = try? rebuilt.attributeDatabase()
    if let loaded, loaded != direct { fatalError("the direct database differs from the JSON one") }
    // What a capture-backed peripheral serves, and the live replay's captured outcomes.
    if let script = try? CapturedServerScript(conversations: conversations) {
        for push in script.pushes where push.offset < .zero || push.offset > .seconds(86_400) {
            fatalError("a push's offset \(push.offset) is outside a day")
        }
        for a in script.database.attributes.prefix(64) {
            _ = script.answer(toWrite: a.handle, value: a.value)
        }
    }
    for c in conversations { for run in CapturedProcedureRun.runs(in: c) { _ = run.captured } }
    // Both sides through the streaming session, as attune replay runs them.
    for side in [ReplaySession.Side.server, .client] {
        guard let reader = try? CaptureReader(bytes: bytes, maximumRecordLength: 1 << 16) else { return }
        var session = ReplaySession(reader: reader, side: side)
        while let step = try? session.next() { _ = step.report.explained }
    }
}
