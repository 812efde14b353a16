#if canImport(Glibc)
import Glibc
#endif
import HCI
import Synchronization

/// A capture file that transports write their traffic to (`--snoop FILE`), safe to call
/// from any task or thread.
///
/// The default format is btsnoop with H4 records (datalink 1002), which tshark, Wireshark
/// and `btmon -r` open. Transports that see HCI record packets as they cross the wire;
/// transports that only see L2CAP (the kernel's ATT socket) record frames, which are
/// wrapped in a single ACL packet on a connection handle of their choosing, so the
/// same decoders read both.
public final class SnoopFile: Sendable {
    private let state: Mutex<State>
    public let path: String
    /// Keep the link keys in HCI commands (LE Enable Encryption, LE Long Term Key Request
    /// Reply) as they were sent (`--snoop-keys`), so a capture can be decrypted; by
    /// default recorders zero them.
    public let keepsKeys: Bool

    struct State: ~Copyable {
        var writer: CaptureWriter<FileOutput>
        var failure: CaptureError?
    }

    /// Creates or truncates the file and writes its header.
    public init(path: String, format: CaptureFormat = .btsnoop(.hciUART), keepsKeys: Bool = false) throws(CaptureError) {
        self.path = path
        self.keepsKeys = keepsKeys
        state = Mutex(State(writer: try CaptureWriter(path: path, format: format), failure: nil))
    }

    /// Microseconds since the Unix epoch, now.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Records one HCI packet (without its H4 indicator).
    public func record(_ type: H4PacketType, _ direction: CaptureDirection, _ packet: ArraySlice<UInt8>,
                       controller: UInt16 = 0, at timestamp: Int64? = nil) {
        write([CaptureRecord(kind: .hci(type), direction: direction, controller: controller,
                             timestamp: timestamp ?? Self.now(), payload: packet)])
    }

    /// Records whole records in order, as one step: another task's records never land
    /// between them (the fragments of one synthesized ACL frame stay together).
    public func write(_ records: [CaptureRecord]) {
        state.withLock { state in
            guard state.failure == nil else { return }
            do throws(CaptureError) {
                for record in records { try state.writer.write(record) }
                // Flush per call so a crash or kill keeps everything up to it.
                _ = try state.writer.finish()
            } catch {
                state.failure = error
            }
        }
    }

    /// Records an L2CAP payload on a channel as one ACL packet on `handle`: PB=00 when
    /// sent, PB=10 when received, as controllers and hosts mark first fragments.
    public func recordL2CAP(channel: L2CAPChannelID, payload: ArraySlice<UInt8>, handle: UInt16,
                            direction: CaptureDirection, controller: UInt16 = 0, at timestamp: Int64? = nil) {
        let frame = L2CAPBasicFrame(channel: channel, payload: payload).encoded
        let packet = ACLDataPacket(handle: handle, boundary: direction == .sent ? .firstNonFlushable : .firstFlushable,
                                   data: frame[...])
        record(.aclData, direction, packet.encoded[...], controller: controller, at: timestamp)
    }

    /// The first write error, if any; recording stops after one.
    public var failure: CaptureError? { state.withLock { $0.failure } }
}
