import BluetoothCore

/// An Eddystone frame: service data under UUID 0xFEAA (github.com/google/eddystone).
/// All multi-byte fields are big endian.
public enum EddystoneFrame: Hashable, Sendable {
    /// UID (0x00): a 10-byte namespace and 6-byte instance; `txPower` is dBm at 0 m.
    case uid(namespace: [UInt8], instance: [UInt8], txPower: Int8)
    /// URL (0x10): the expanded URL; `txPower` is dBm at 0 m.
    case url(String, txPower: Int8)
    /// Unencrypted TLM (0x20, version 0).
    case telemetry(EddystoneTelemetry)

    /// The service data UUID.
    public static let serviceUUID: UInt16 = 0xFEAA

    /// Decodes service data (the bytes after the 0xFEAA UUID).
    public init(serviceData: ArraySlice<UInt8>) throws(SensorDecodingError) {
        var reader = PayloadReader(serviceData)
        let frameType = try reader.u8("frame type")
        switch frameType {
        case 0x00:
            let txPower = Int8(bitPattern: try reader.u8("tx power"))
            let namespace = Array(try reader.slice(10, "namespace"))
            let instance = Array(try reader.slice(6, "instance"))
            // The two RFU bytes complete the frame; early beacons truncate them (the spec
            // allows both lengths).
            if !reader.isAtEnd {
                _ = try reader.slice(2, "RFU")
                try reader.expectEnd()
            }
            self = .uid(namespace: namespace, instance: instance, txPower: txPower)
        case 0x10:
            let txPower = Int8(bitPattern: try reader.u8("tx power"))
            self = .url(try Self.url(&reader), txPower: txPower)
        case 0x20:
            self = .telemetry(try EddystoneTelemetry(&reader))
        default:
            throw SensorDecodingError(.unsupportedFrame(frameType), offset: 0)
        }
    }

    /// Convenience for whole arrays.
    public init(serviceData: [UInt8]) throws(SensorDecodingError) {
        try self.init(serviceData: serviceData[...])
    }

    static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    static let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                             ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

    /// The scheme prefix byte, then printable ASCII with 0x00–0x0D standing for the
    /// expansions; 0x0E–0x20 and 0x7F–0xFF are reserved, so a URL holding them is refused.
    static func url(_ reader: inout PayloadReader) throws(SensorDecodingError) -> String {
        let schemeOffset = reader.position
        let scheme = try reader.u8("URL scheme")
        guard Int(scheme) < schemes.count else {
            throw SensorDecodingError(.invalidValue(field: "URL scheme", value: UInt64(scheme)), offset: schemeOffset)
        }
        var url = schemes[Int(scheme)]
        while !reader.isAtEnd {
            let at = reader.position
            let code = try reader.u8("URL")
            if Int(code) < expansions.count {
                url += expansions[Int(code)]
            } else if code > 0x20, code < 0x7F {
                url.unicodeScalars.append(Unicode.Scalar(code))
            } else {
                throw SensorDecodingError(.invalidValue(field: "URL", value: UInt64(code)), offset: at)
            }
        }
        return url
    }

    /// The frame's fields as readings: `namespace`/`instance`/`tx_power`, `url`/`tx_power`,
    /// or the telemetry's.
    public var readings: [DecodedReading] {
        switch self {
        case let .uid(namespace, instance, txPower):
            [DecodedReading(key: "namespace", value: DecodedValue(value: .string(hexString(namespace, empty: "")))),
             DecodedReading(key: "instance", value: DecodedValue(value: .string(hexString(instance, empty: "")))),
             DecodedReading(key: "tx_power", value: DecodedValue(value: .integer(txPower), unit: "dBm"))]
        case let .url(url, txPower):
            [DecodedReading(key: "url", value: DecodedValue(value: .string(url))),
             DecodedReading(key: "tx_power", value: DecodedValue(value: .integer(txPower), unit: "dBm"))]
        case let .telemetry(tlm):
            tlm.readings
        }
    }
}
