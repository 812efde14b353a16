import Capture
import HCI

/// Writes every H4 packet of a userland host session to a btsnoop file with datalink
/// 1002 (HCI UART): the `--snoop FILE` capture. Directions are the host's view, because
/// the recorder sits on the host's side of the stream. The file itself is a
/// ``SnoopFile``, the one capture writer every transport shares.
public final class BTSnoopRecorder: H4PacketRecorder {
    /// Where the packets go; it flushes per packet, so a killed process keeps them.
    public let file: SnoopFile
    public var path: String { file.path }

    /// Creates (or truncates) the file and writes its header.
    public convenience init(path: String) throws(CaptureError) {
        self.init(file: try SnoopFile(path: path))
    }

    /// Records into an open capture, which other recorders may share.
    public init(file: SnoopFile) {
        self.file = file
    }

    public func record(_ packet: [UInt8], fromHost: Bool) {
        guard let indicator = packet.first else { return }
        let kind: CaptureRecord.Kind = H4PacketType(rawValue: indicator).map { .hci($0) } ?? .unknownH4(indicator)
        file.write([CaptureRecord(kind: kind, direction: fromHost ? .sent : .received,
                                  timestamp: SnoopFile.now(), payload: packet[1...])])
    }

    /// The file's choice (`--snoop-keys`).
    public var keepsKeys: Bool { file.keepsKeys }

    /// Nothing to do: the file flushes every packet.
    public func finish() {}

    /// Why recording stopped early, if it did; the session goes on regardless.
    public var error: CaptureError? { file.failure }
}
