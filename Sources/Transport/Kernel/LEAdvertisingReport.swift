/// One entry of an HCI LE Advertising Report event (Core Vol 4 Part E 7.7.65.2),
/// with the advertising data left raw for the advertising-data parser.
public struct LEAdvertisingReport: Hashable, Sendable {
    /// ADV_IND 0, ADV_DIRECT_IND 1, ADV_SCAN_IND 2, ADV_NONCONN_IND 3, SCAN_RSP 4.
    public var eventType: UInt8
    /// The HCI address type (0 public, 1 random, 2/3 resolved identities).
    public var hciAddressType: UInt8
    public var address: BluetoothAddress
    public var data: [UInt8]
    /// dBm; 127 means "not available".
    public var rssi: Int8

    public var addressType: LEAddressType? { LEAddressType(hciValue: hciAddressType) }
    public var isConnectable: Bool { eventType == 0 || eventType == 1 }
    public var isScanResponse: Bool { eventType == 4 }

    public init(eventType: UInt8, hciAddressType: UInt8, address: BluetoothAddress, data: [UInt8], rssi: Int8) {
        self.eventType = eventType
        self.hciAddressType = hciAddressType
        self.address = address
        self.data = data
        self.rssi = rssi
    }

    /// What is wrong with a report event, and where.
    public struct ParseError: Error, Hashable, Sendable {
        public var offset: Int
        public var reason: String
    }

    /// The LE Meta subevent code of the (legacy) advertising report.
    public static let subevent: UInt8 = 0x02

    /// Parses the parameters of an LE Meta event whose subevent is the
    /// advertising report, each report laid out one after another as
    /// controllers send them. Never traps on hostile input.
    public static func parse(leMetaParameters p: [UInt8]) throws -> [LEAdvertisingReport] {
        guard p.count >= 2 else { throw ParseError(offset: p.count, reason: "event too short") }
        guard p[0] == subevent else { throw ParseError(offset: 0, reason: "not an advertising report") }
        let count = Int(p[1])
        var offset = 2
        var reports: [LEAdvertisingReport] = []
        reports.reserveCapacity(count)
        for index in 0..<count {
            guard p.count - offset >= 9 else { throw ParseError(offset: offset, reason: "report \(index) header truncated") }
            let eventType = p[offset]
            let addressType = p[offset + 1]
            let address = BluetoothAddress(littleEndianBytes: p[(offset + 2)..<(offset + 8)])!
            let length = Int(p[offset + 8])
            offset += 9
            guard length <= 31 else { throw ParseError(offset: offset - 1, reason: "data length \(length) exceeds 31") }
            guard p.count - offset >= length + 1 else { throw ParseError(offset: offset, reason: "report \(index) data truncated") }
            let data = Array(p[offset..<(offset + length)])
            offset += length
            let rssi = Int8(bitPattern: p[offset])
            offset += 1
            reports.append(LEAdvertisingReport(eventType: eventType, hciAddressType: addressType, address: address, data: data, rssi: rssi))
        }
        return reports
    }
}
