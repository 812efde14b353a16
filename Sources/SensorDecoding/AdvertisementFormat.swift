/// The advertisement formats of the gateway config's `decode:` key.
public enum AdvertisementFormat: String, Hashable, Sendable, CaseIterable {
    /// BTHome v2, iBeacon, Eddystone, and raw service and manufacturer data as hex.
    case bthome, ibeacon, eddystone, raw
}
