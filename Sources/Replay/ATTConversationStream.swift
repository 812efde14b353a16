import ATT
import Capture
import HCI

/// Reads a capture as a stream of ``ATTConversation``s: each is handed out once it is
/// over (Disconnection Complete, the handle reused, or the end of the capture), so
/// memory holds the conversations still open rather than the whole capture.
///
/// Conversations come out in the order of their first PDU, as
/// ``ATTConversationCollector`` sorts them: one that ends while an earlier-starting one
/// is still open waits for it. Captures of one connection at a time (and both ends of a
/// virtual link, which end together) therefore hold about one conversation at a time.
public struct ATTConversationStream {
    struct Key: Hashable {
        var controller: UInt16
        var handle: UInt16
    }

    var reader: CaptureReader
    var decoder = CaptureDecoder()
    var open: [Key: ATTConversation] = [:]
    /// Keys in the order their conversations were opened, to close them in that order at the end.
    var order: [Key] = []
    /// Ended conversations not yet handed out, sorted by first PDU.
    var finished: [ATTConversation] = []
    var atEnd = false

    public init(reader: CaptureReader) {
        self.reader = reader
    }

    public init(path: String) throws(CaptureError) {
        self.init(reader: try CaptureReader(path: path))
    }

    /// The next conversation, or nil at the end of the capture. Throws the reader's
    /// error for a damaged capture; the conversations before the damage came out already.
    public mutating func next() throws(CaptureError) -> ATTConversation? {
        while true {
            if let ready = releasable() { return ready }
            if atEnd {
                return finished.isEmpty ? nil : finished.removeFirst()
            }
            guard let record = try reader.next() else {
                atEnd = true
                for key in order { close(key) }
                order.removeAll()
                continue
            }
            process(record)
        }
    }

    /// The first ended conversation, if no open conversation started before it.
    mutating func releasable() -> ATTConversation? {
        guard let first = finished.first?.pdus.first?.frame.recordIndex else { return nil }
        for c in open.values {
            if let start = c.pdus.first?.frame.recordIndex, start < first { return nil }
        }
        return finished.removeFirst()
    }

    mutating func close(_ key: Key) {
        if let c = open.removeValue(forKey: key), let start = c.pdus.first?.frame.recordIndex {
            let at = finished.firstIndex { ($0.pdus.first?.frame.recordIndex ?? 0) > start } ?? finished.endIndex
            finished.insert(c, at: at)
        }
        if let i = order.firstIndex(of: key) { order.remove(at: i) }
    }

    mutating func process(_ record: CaptureRecord) {
        guard let event = decoder.process(record) else { return }
        switch event {
        case let .connected(c):
            let key = Key(controller: c.controller, handle: c.handle)
            close(key)
            open[key] = ATTConversation(controller: c.controller, handle: c.handle, connection: c)
            order.append(key)
        case let .disconnected(controller, handle, _, _):
            close(Key(controller: controller, handle: handle))
        case let .frame(frame) where frame.channel == .attribute:
            let key = Key(controller: frame.controller, handle: frame.connectionHandle)
            if open[key] == nil {
                open[key] = ATTConversation(controller: frame.controller, handle: frame.connectionHandle,
                                            connection: frame.connection)
                order.append(key)
            }
            // Copy the payload out of the reader's buffer: conversations outlive it.
            var owned = frame
            owned.payload = Array(frame.payload)[...]
            let pdu: Result<ATTPDU, ATTDecodingError>
            do { pdu = .success(try ATTPDU.decode(owned.payload)) } catch { pdu = .failure(error) }
            open[key]?.pdus.append(CapturedATTPDU(frame: owned, pdu: pdu))
        default:
            break
        }
    }
}
