/// Capture files: btsnoop, pcap and pcapng readers and writers, and the extraction of
/// ATT PDUs from the HCI traffic they hold.
public enum Capture {
    /// Microseconds between 0000-01-01T00:00:00Z, btsnoop's epoch, and the Unix epoch.
    public static let btsnoopEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// The btsnoop timestamps (microseconds since year 0) a capture can hold: from the
    /// Unix epoch, before which no capture was made, through the end of year 9999. What
    /// lies outside (all ones, for one) is damage, not a time.
    public static let btsnoopTimestamps: ClosedRange<Int64> = btsnoopEpochOffset...(btsnoopEpochOffset + 253_402_300_799_999_999)
}
