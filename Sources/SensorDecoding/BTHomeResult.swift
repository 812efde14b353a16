/// What one BTHome advertisement gave.
public enum BTHomeResult: Hashable, Sendable {
    /// Objects to publish: authenticated under the device's bind key, or plaintext from a
    /// device that has none.
    case accepted(BTHomePacket)
    /// Plaintext from a device that has a bind key: anyone can send plaintext under a copied
    /// address, so its objects are not decoded as readings. The service data is kept for the
    /// alarm's report.
    case downgradeAlarm(serviceData: [UInt8])
    /// The last accepted encrypted advertisement again, byte for byte: an advertiser repeats
    /// each advertising PDU until its data changes, and a scan without duplicate filtering
    /// reports every repeat. Nothing new to publish, and no sign of an attack (a recording of
    /// the current state is the current state), so it is neither readings nor an error.
    case duplicate
}
