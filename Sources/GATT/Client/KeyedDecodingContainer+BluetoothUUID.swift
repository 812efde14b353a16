import ATT

extension KeyedDecodingContainer {
    /// UUIDs are stored as text (`180D` or the 36-character form) so the store stays
    /// readable by people.
    package func decodeBluetoothUUID(forKey key: Key) throws -> BluetoothUUID {
        let text = try decode(String.self, forKey: key)
        guard let uuid = BluetoothUUID(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a UUID: \(text)")
        }
        return uuid
    }
}
