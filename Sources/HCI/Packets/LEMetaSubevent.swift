/// Subevent codes of the HCI LE Meta event (0x3E) that Attune decodes (Vol 4 Part E §7.7.65).
public enum LEMetaSubevent {
    public static let connectionComplete: UInt8 = 0x01
    public static let advertisingReport: UInt8 = 0x02
    public static let connectionUpdateComplete: UInt8 = 0x03
    public static let dataLengthChange: UInt8 = 0x07
    public static let enhancedConnectionComplete: UInt8 = 0x0A
    public static let phyUpdateComplete: UInt8 = 0x0C
    public static let extendedAdvertisingReport: UInt8 = 0x0D
    public static let enhancedConnectionCompleteV2: UInt8 = 0x29
}
