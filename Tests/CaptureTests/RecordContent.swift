import Capture
import HCI

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
