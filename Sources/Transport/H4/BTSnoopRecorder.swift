import Capture
import Foundation
import HCI
import Synchronization

/// Writes every H4 packet of a userland host session to a btsnoop file with datalink
/// 1002 (HCI UART): the `--snoop FILE` capture. Directions are the host's view, because
/// the recorder sits on the host's side of the stream.
public final class BTSnoopRecorder: H4PacketRecorder {
    private let writer: Mutex<CaptureWriter<FileOutput>?>
    /// The first write error, if any; later packets are then dropped, the session goes on.
    private let failure = Mutex<CaptureError?>(nil)
    public let path: String

    /// Creates (or truncates) the file and writes its header.
    public init(path: String) throws(CaptureError) {
        self.path = path
        writer = Mutex(try CaptureWriter(path: path, format: .btsnoop(.hciUART)))
    }

    public func record(_ packet: [UInt8], fromHost: Bool) {
        guard let indicator = packet.first else { return }
        let kind: CaptureRecord.Kind = H4PacketType(rawValue: indicator).map { .hci($0) } ?? .unknownH4(indicator)
        let microseconds = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        let record = CaptureRecord(kind: kind, direction: fromHost ? .sent : .received,
                                   timestamp: microseconds, payload: packet[1...])
        writer.withLock { writer in
            guard writer != nil else { return }
            do throws(CaptureError) {
                try writer!.write(record)
            } catch {
                failure.withLock { $0 = $0 ?? error }
                writer = nil
            }
        }
    }

    public func finish() {
        writer.withLock { writer in
            guard writer != nil else { return }
            do throws(CaptureError) {
                _ = try writer!.finish()
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
            writer = nil
        }
    }

    /// Why recording stopped early, if it did.
    public var error: CaptureError? { failure.withLock { $0 } }
}
