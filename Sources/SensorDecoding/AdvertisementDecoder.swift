import BluetoothCore

/// One device's advertisement decoder for its configured format; for BTHome it holds the
/// bind key and replay counter, so keep one per device.
public struct AdvertisementDecoder: Hashable, Sendable {
    /// What one advertisement gave.
    public enum Outcome: Hashable, Sendable {
        /// The advertisement's readings, to publish. For BTHome, `stoppedAt` is set when an
        /// unknown object id ended decoding (``BTHomePacket/stoppedAt``); the readings before
        /// it are good.
        case readings([DecodedReading], stoppedAt: SensorDecodingError? = nil)
        /// BTHome plaintext from a device with a bind key (see ``BTHomeResult/downgradeAlarm(serviceData:)``).
        case downgradeAlarm(serviceData: [UInt8])
        /// BTHome's last accepted advertisement repeated (``BTHomeResult/duplicate``).
        case duplicate
        /// The advertisement carries no data of this format (a scan response with only a name).
        case absent
    }

    /// The configured format.
    public let format: AdvertisementFormat
    /// The BTHome state (bind key, last counter); keyless and unused for other formats.
    public private(set) var bthome: BTHomeDecoder

    /// `bindKey` is used by BTHome only.
    public init(format: AdvertisementFormat, bindKey: [UInt8]? = nil) throws(SensorDecodingError) {
        self.format = format
        bthome = try BTHomeDecoder(bindKey: format == .bthome ? bindKey : nil)
    }

    /// Decodes the parts of an advertisement from `address` that its format reads.
    public mutating func decode(address: BluetoothAddress, serviceData: [BluetoothUUID: [UInt8]],
                                manufacturerData: [UInt16: [UInt8]]) throws(SensorDecodingError) -> Outcome {
        switch format {
        case .bthome:
            guard let data = serviceData[BTHomeDecoder.serviceUUID] else { return .absent }
            switch try bthome.decode(serviceData: data, address: address) {
            case let .accepted(packet): return .readings(packet.readings, stoppedAt: packet.stoppedAt)
            case let .downgradeAlarm(bytes): return .downgradeAlarm(serviceData: bytes)
            case .duplicate: return .duplicate
            }
        case .ibeacon:
            guard let data = manufacturerData[IBeacon.companyID] else { return .absent }
            return .readings(try IBeacon(companyID: IBeacon.companyID, data: data).readings)
        case .eddystone:
            guard let data = serviceData[BluetoothUUID(EddystoneFrame.serviceUUID)] else { return .absent }
            return .readings(try EddystoneFrame(serviceData: data).readings)
        case .raw:
            if serviceData.isEmpty, manufacturerData.isEmpty { return .absent }
            return .readings(RawAdvertisementData(serviceData: serviceData, manufacturerData: manufacturerData).readings)
        }
    }
}
