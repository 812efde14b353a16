import BluetoothCore

/// A subscription the gateway wants a device to have: the config's `notify: true` (or an
/// indication) on one characteristic.
public struct DesiredSubscription: Hashable, Sendable, Comparable {
    public var characteristic: BluetoothUUID
    /// Indications instead of notifications.
    public var indicate: Bool

    public init(characteristic: BluetoothUUID, indicate: Bool = false) {
        self.characteristic = characteristic
        self.indicate = indicate
    }

    /// By characteristic then kind, so action lists come out in a stable order.
    public static func < (a: DesiredSubscription, b: DesiredSubscription) -> Bool {
        let x = a.characteristic.description, y = b.characteristic.description
        return x != y ? x < y : (!a.indicate && b.indicate)
    }
}
