import ATT
import HCI

/// Reads a capture and yields its ATT PDUs (L2CAP channel 0x0004) in order, with the
/// counts of everything else it saw. Memory stays bounded however long the capture.
public struct ATTPDUExtractor {
    public private(set) var reader: CaptureReader
    public private(set) var decoder = CaptureDecoder()
    /// Frames on other channels (signaling, SMP, dynamic channels).
    public private(set) var otherFrames = 0
    /// ACL fragments discarded by reassembly, with the first few reasons.
    public private(set) var drops = 0
    public private(set) var malformed = 0
    /// The first problems seen, for reports; at most 16 are kept.
    public private(set) var problems: [CaptureEvent] = []

    public init(reader: CaptureReader) {
        self.reader = reader
    }

    /// The next ATT PDU, nil at the end of the capture; throws when the file is damaged,
    /// after every PDU before the damage.
    public mutating func next() throws(CaptureError) -> CapturedATTPDU? {
        while let record = try reader.next() {
            var displaced: CaptureEvent?
            let event = decoder.process(record, dropped: &displaced)
            if let displaced { note(displaced) }
            guard let event else { continue }
            if case let .frame(frame) = event {
                guard frame.channel == .attribute else {
                    otherFrames &+= 1
                    continue
                }
                let pdu: Result<ATTPDU, ATTDecodingError>
                do {
                    pdu = .success(try ATTPDU.decode(frame.payload))
                } catch {
                    pdu = .failure(error)
                }
                return CapturedATTPDU(frame: frame, pdu: pdu)
            }
            note(event)
        }
        return nil
    }

    mutating func note(_ event: CaptureEvent) {
        switch event {
        case .dropped:
            drops &+= 1
            if problems.count < 16 { problems.append(event) }
        case .malformed:
            malformed &+= 1
            if problems.count < 16 { problems.append(event) }
        default:
            break
        }
    }
}

extension ATTPDUExtractor {
    /// Opens a capture file.
    public init(path: String) throws(CaptureError) {
        self.init(reader: try CaptureReader(path: path))
    }
}
