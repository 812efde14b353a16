import HCI

/// What `PeripheralManager.startAdvertising(localName:serviceUUIDs:manufacturerData:serviceData:txPowerLevel:appearance:connectable:)`
/// puts on the air.
public struct AdvertisingParameters: Hashable, Sendable {
    /// Sent as Complete Local Name.
    public var localName: String?
    /// Sent as complete lists, grouped by width.
    public var serviceUUIDs: [BluetoothUUID]
    /// Company identifier and data.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data by service UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Tx Power Level in dBm.
    public var txPowerLevel: Int8?
    /// The GAP Appearance value.
    public var appearance: UInt16?
    /// Connectable (ADV_IND) or not (ADV_NONCONN_IND).
    public var isConnectable: Bool

    /// What to advertise.
    public init(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = [], manufacturerData: [UInt16: [UInt8]] = [:],
                serviceData: [BluetoothUUID: [UInt8]] = [:], txPowerLevel: Int8? = nil, appearance: UInt16? = nil,
                isConnectable: Bool = true) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.txPowerLevel = txPowerLevel
        self.appearance = appearance
        self.isConnectable = isConnectable
    }

    /// The AD structures, in the order controllers usually send them: flags, service
    /// UUIDs grouped by width (complete lists), appearance, TX power, service data,
    /// manufacturer data, and the local name (complete).
    ///
    /// Legacy advertising carries 31 bytes; transports split or shorten as they must.
    public var advertisingData: [UInt8] {
        var out: [UInt8] = []
        func add(_ type: UInt8, _ data: [UInt8]) {
            guard data.count <= 254 else { return }
            out.append(UInt8(data.count + 1))
            out.append(type)
            out += data
        }
        // LE General Discoverable, BR/EDR not supported.
        add(0x01, [0x06])
        for (type, width) in [(UInt8(0x03), BluetoothUUID.Width.bits16), (0x05, .bits32), (0x07, .bits128)] {
            let list = serviceUUIDs.filter { $0.width == width }
            if !list.isEmpty { add(type, list.flatMap(\.littleEndianBytes)) }
        }
        if let appearance { add(0x19, [UInt8(truncatingIfNeeded: appearance), UInt8(truncatingIfNeeded: appearance >> 8)]) }
        if let txPowerLevel { add(0x0A, [UInt8(bitPattern: txPowerLevel)]) }
        for (uuid, data) in serviceData.sorted(by: { $0.key < $1.key }) {
            let type: UInt8 = uuid.width == .bits16 ? 0x16 : uuid.width == .bits32 ? 0x20 : 0x21
            add(type, uuid.littleEndianBytes + data)
        }
        for (company, data) in manufacturerData.sorted(by: { $0.key < $1.key }) {
            add(0xFF, [UInt8(truncatingIfNeeded: company), UInt8(truncatingIfNeeded: company >> 8)] + data)
        }
        if let localName { add(0x09, Array(localName.utf8)) }
        return out
    }
}
