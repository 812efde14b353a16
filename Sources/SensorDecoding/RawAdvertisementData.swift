import BluetoothCore

/// Service data and manufacturer data as hex, for devices with no decoder (`decode: raw`).
public struct RawAdvertisementData: Hashable, Sendable {
    /// Service data by UUID, the bytes after the UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Manufacturer data by company identifier, the bytes after the identifier.
    public var manufacturerData: [UInt16: [UInt8]]

    /// The data of one advertisement, as `Advertisement` holds it.
    public init(serviceData: [BluetoothUUID: [UInt8]] = [:], manufacturerData: [UInt16: [UInt8]] = [:]) {
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
    }

    /// `service_data_<uuid>` (UUID as Attune prints it, lowercase) and
    /// `manufacturer_data_<company, 4 hex digits>`, each a hex string, sorted so that the
    /// order is the same for every advertisement.
    public var readings: [DecodedReading] {
        let services = serviceData.sorted { $0.key < $1.key }.map { uuid, bytes in
            DecodedReading(key: "service_data_" + uuid.description.lowercased(),
                           value: DecodedValue(value: .string(hexString(bytes, empty: "")), hex: hexString(bytes, empty: "")))
        }
        let companies = manufacturerData.sorted { $0.key < $1.key }.map { company, bytes in
            DecodedReading(key: "manufacturer_data_" + hexString(company, digits: 4),
                           value: DecodedValue(value: .string(hexString(bytes, empty: "")), hex: hexString(bytes, empty: "")))
        }
        return services + companies
    }
}
