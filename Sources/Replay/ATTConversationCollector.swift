import ATT
import Capture
import HCI

/// Splits a capture into ``ATTConversation``s: one per controller, connection handle and
/// connection (a handle reused after Disconnection Complete starts a new conversation).
///
/// Unlike decoding, this keeps every ATT PDU of the capture in memory, since replay needs
/// whole conversations.
public enum ATTConversationCollector {
    struct Key: Hashable {
        var controller: UInt16
        var handle: UInt16
    }

    /// Every conversation in capture order (by first PDU or connection event). Throws
    /// the reader's error for a damaged capture.
    public static func conversations(in reader: CaptureReader) throws(CaptureError) -> [ATTConversation] {
        var reader = reader
        var decoder = CaptureDecoder()
        var finished: [ATTConversation] = []
        var open: [Key: ATTConversation] = [:]
        var order: [Key] = []
        func close(_ key: Key) {
            if let c = open.removeValue(forKey: key), !c.pdus.isEmpty { finished.append(c) }
            order.removeAll { $0 == key }
        }
        while let record = try reader.next() {
            guard let event = decoder.process(record) else { continue }
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
                open[key]!.pdus.append(CapturedATTPDU(frame: owned, pdu: pdu))
            default:
                break
            }
        }
        for key in order { close(key) }
        return finished.sorted { ($0.pdus.first?.frame.recordIndex ?? 0) < ($1.pdus.first?.frame.recordIndex ?? 0) }
    }

    /// Reads a capture file's conversations.
    public static func conversations(path: String) throws(CaptureError) -> [ATTConversation] {
        try conversations(in: try CaptureReader(path: path))
    }
}
