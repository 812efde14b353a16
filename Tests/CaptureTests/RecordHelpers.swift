import Capture
import HCI

/// Reads every record of an in-memory capture.
func readAll(_ bytes: [UInt8]) throws -> (CaptureFormat, [CaptureRecord]) {
    var reader = try CaptureReader(bytes: bytes)
    var records: [CaptureRecord] = []
    while let r = try reader.next() { records.append(r) }
    return (reader.format, records)
}

/// Writes records to memory in a format.
func writeAll(_ records: [CaptureRecord], as format: CaptureFormat) throws -> [UInt8] {
    var writer = try CaptureWriter(output: MemoryOutput(), format: format)
    for r in records { try writer.write(r) }
    return try writer.finish().bytes
}

/// A record's content, leaving out where it sat in its file.
struct RecordContent: Equatable, CustomStringConvertible {
    var kind: CaptureRecord.Kind
    var direction: CaptureDirection
    var controller: UInt16
    var timestamp: Int64
    var payload: [UInt8]
    var originalLength: Int

    init(_ r: CaptureRecord) {
        kind = r.kind
        direction = r.direction
        controller = r.controller
        timestamp = r.timestamp
        payload = Array(r.payload)
        originalLength = r.originalLength
    }

    var description: String { "\(kind) \(direction) hci\(controller) @\(timestamp) \(payload.count) bytes" }
}
