import Attune
import BluetoothCore
import GatewayConfig
import GatewayCore
import SensorDecoding

/// What the gateway keeps for one configured device while it runs.
struct DeviceRuntime {
    var configuration: DeviceConfiguration
    var id: DeviceID { DeviceID(configuration.name) }
    /// The adapter (index into the gateway's adapters) the pool assigned it to: its next
    /// link goes through it. Nil while no adapter serves it.
    var adapter: Int?
    /// The adapter its current attempt or link is on (the pool may have moved `adapter`
    /// on since): connects, failures and disconnections are reported to this one.
    var linkAdapter: Int?
    /// The last advertisement each adapter heard from it, and when: the peripheral of a
    /// link is taken from the central of the adapter that connects (an IRK device's
    /// current address comes from it), and a lease is claimed only for a device heard.
    var heard: [Int: (advertisement: Advertisement, at: MonotonicTime)] = [:]
    /// The decoder of its advertisements, when `decode:` names one.
    var decoder: AdvertisementDecoder?
    /// The peripheral of its current or last link, on that link's adapter's central.
    var peripheral: Peripheral?
    /// The handle the scheduler knows the live link by.
    var handle: UInt16?
    /// Connecting, then the work of a live link (discovery, subscriptions, reads).
    var work: Task<Void, Never>?
    /// Watches the peripheral's lifecycle for the disconnections the scheduler counts.
    var watcher: Task<Void, Never>?
    /// The characteristics of its `gatt:` entries on the live link, by topic.
    var characteristics: [String: Characteristic] = [:]
    /// The `gatt:` topics with a notification consumer on the live link: each link's
    /// streams are new (links are made without automatic reconnect), so a new link
    /// starts with none.
    var consumers: Set<String> = []
    /// The last RSSI heard, for published values.
    var rssi: Int?
    /// Writes waiting for an on-demand link.
    var pendingWrites: [PendingWrite] = []
    /// Counted: values a slow path dropped (notifications the stream reported lost).
    var lost = 0
    /// The last error, for `--explain`.
    var lastError: String?
    /// Its `/set` writes and their results.
    var writes = 0
    /// CCCDs read and written again after a silence (the subscription watchdog).
    var resubscribes = 0

    /// A `/set` payload waiting for a link.
    struct PendingWrite {
        var topic: String
        var payload: [UInt8]
        var responseTopic: String?
        var correlationData: [UInt8]?
    }
}
