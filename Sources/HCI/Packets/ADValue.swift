import BluetoothCore

/// The typed content of one advertising data structure.
public enum ADValue: Hashable, Sendable {
    /// LE Limited (bit 0) / General (bit 1) Discoverable, BR/EDR Not Supported (bit 2)...
    case flags(UInt8)
    /// Service UUIDs (16-, 32- or 128-bit); `complete` is false for the "incomplete" types.
    case serviceUUIDs([BluetoothUUID], complete: Bool)
    case serviceSolicitationUUIDs([BluetoothUUID])
    /// The name, decoded as UTF-8 with invalid sequences replaced.
    case localName(String, complete: Bool)
    /// dBm.
    case txPowerLevel(Int8)
    case serviceData(BluetoothUUID, ArraySlice<UInt8>)
    /// An appearance value from the Assigned Numbers (category << 6 | subcategory).
    case appearance(UInt16)
    case manufacturerData(companyID: UInt16, data: ArraySlice<UInt8>)
    /// Units of 1.25 ms; 0xFFFF means no specific value.
    case peripheralConnectionIntervalRange(minimum: UInt16, maximum: UInt16)
    /// Units of 0.625 ms.
    case advertisingInterval(UInt32)
    case targetAddresses([BluetoothAddress], random: Bool)
    case leBluetoothDeviceAddress(BluetoothAddress, random: Bool)
    case leRole(UInt8)
    case uri(String)
    /// A type not decoded further.
    case other(ArraySlice<UInt8>)
}
