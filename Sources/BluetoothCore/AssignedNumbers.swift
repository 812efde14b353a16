/// Names of commonly used 16-bit UUIDs from the Bluetooth SIG Assigned Numbers: GATT
/// declarations and descriptors, common services and characteristics.
public enum AssignedNumbers {
    public static func name(for uuid: UInt16) -> String? { table[uuid] }

    static let table: [UInt16: String] = [
        0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x1802: "Immediate Alert", 0x1803: "Link Loss",
        0x1804: "Tx Power", 0x1805: "Current Time", 0x180A: "Device Information", 0x180D: "Heart Rate",
        0x180F: "Battery", 0x1810: "Blood Pressure", 0x1812: "Human Interface Device", 0x1816: "Cycling Speed and Cadence",
        0x1818: "Cycling Power", 0x1819: "Location and Navigation", 0x181A: "Environmental Sensing",
        0x181C: "User Data", 0x181D: "Weight Scale", 0x1822: "Pulse Oximeter", 0x1826: "Fitness Machine",
        0x2800: "Primary Service", 0x2801: "Secondary Service", 0x2802: "Include", 0x2803: "Characteristic",
        0x2900: "Characteristic Extended Properties", 0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration", 0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format", 0x2905: "Characteristic Aggregate Format",
        0x2906: "Valid Range", 0x2907: "External Report Reference", 0x2908: "Report Reference",
        0x290B: "Environmental Sensing Configuration", 0x290C: "Environmental Sensing Measurement",
        0x290D: "Environmental Sensing Trigger Setting",
        0x2A00: "Device Name", 0x2A01: "Appearance", 0x2A02: "Peripheral Privacy Flag", 0x2A03: "Reconnection Address",
        0x2A04: "Peripheral Preferred Connection Parameters", 0x2A05: "Service Changed", 0x2A19: "Battery Level",
        0x2A23: "System ID", 0x2A24: "Model Number String", 0x2A25: "Serial Number String",
        0x2A26: "Firmware Revision String", 0x2A27: "Hardware Revision String", 0x2A28: "Software Revision String",
        0x2A29: "Manufacturer Name String", 0x2A2A: "IEEE 11073-20601 Regulatory Certification Data List",
        0x2A37: "Heart Rate Measurement", 0x2A38: "Body Sensor Location", 0x2A39: "Heart Rate Control Point",
        0x2A50: "PnP ID", 0x2A6E: "Temperature", 0x2A6F: "Humidity", 0x2AA6: "Central Address Resolution",
        0x2AC9: "Resolvable Private Address Only", 0x2B29: "Client Supported Features", 0x2B2A: "Database Hash",
        0x2B3A: "Server Supported Features",
    ]
}
