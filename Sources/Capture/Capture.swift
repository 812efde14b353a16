/// Capture files: btsnoop, pcap and pcapng readers and writers, and the extraction of
/// ATT PDUs from the HCI traffic they hold.
public enum Capture {
    /// Microseconds between 0000-01-01T00:00:00Z, btsnoop's epoch, and the Unix epoch.
    public static let btsnoopEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
}
