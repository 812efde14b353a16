/// The btsnoop format's clock: microseconds since 0000-01-01T00:00:00Z.
public enum BTSnoopTime {
    /// Microseconds between btsnoop's epoch and the Unix epoch.
    public static let epochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// The btsnoop timestamps a capture can hold: from the Unix epoch, before which no
    /// capture was made, through the end of year 9999. What lies outside (all ones, for
    /// one) is damage, not a time.
    public static let timestamps: ClosedRange<Int64> = epochOffset...(epochOffset + 253_402_300_799_999_999)
}
