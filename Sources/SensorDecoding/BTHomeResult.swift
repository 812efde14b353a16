/// What one BTHome advertisement gave.
public enum BTHomeResult: Hashable, Sendable {
    /// Objects to publish: authenticated under the device's bind key, or plaintext from a
    /// device that has none.
    case accepted(BTHomePacket)
    /// Plaintext from a device that has a bind key: anyone can send plaintext under a copied
    /// address, so its objects are not decoded as readings. The service data is kept for the
    /// alarm's report.
    case downgradeAlarm(serviceData: [UInt8])
}
