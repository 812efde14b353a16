import Attune
import GatewayConfig
import GatewayCore
import SensorDecoding

/// What the gateway keeps for one configured device while it runs.
struct DeviceRuntime {
    var configuration: DeviceConfiguration
    var id: DeviceID { DeviceID(configuration.name) }
    /// The adapter (index into the gateway's adapters) its links go through.
    var adapter: Int
    /// The decoder of its advertisements, when `decode:` names one.
    var decoder: AdvertisementDecoder?
    /// The peripheral on its adapter's central, once it has been seen or connected.
    var peripheral: Peripheral?
    /// The handle the scheduler knows the live link by.
    var handle: UInt16?
    /// Connecting, then the work of a live link (discovery, subscriptions, reads).
    var work: Task<Void, Never>?
    /// Watches the peripheral's lifecycle for the disconnections the scheduler counts.
    var watcher: Task<Void, Never>?
    /// The characteristics of its `gatt:` entries on the live link, by topic.
    var characteristics: [String: Characteristic] = [:]
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
