import Attune
import Gateway
import GatewayConfig
import MQTTTestSupport
import Testing

/// A device can reach the gateway through a `Peripheral` that has never carried a
/// consumer: another adapter's central, or a new process, reads a store record that
/// still holds the last link's subscription. That peripheral reports the characteristic
/// as notifying, and its values still need a consumer on this object.
@Suite(.serialized)
struct GatewayRestoredSubscriptionTests {
    @Test("a subscription restored from the store still gets a consumer: its values are published",
          .timeLimit(.minutes(10)))
    func restoredSubscriptionIsConsumed() async throws {
        try await GatewayTestRig.run { rig in
            _ = try await rig.demo()
            let configuration = try GatewayConfiguration(yaml: Array(GatewayMemoryTests.config(on: rig).utf8))
            let observer = try rig.recorder("attune/dev/demo/heart_rate")
            let store = InMemoryStore()

            // A first gateway subscribes, so the store learns the subscription's handles.
            let first = try rig.gateway(configuration, store: store)
            await first.start()
            let firstValue = await observer.first { _ in true }
            #expect(firstValue != nil, "the first gateway's values flow")
            let subscribed = store.records().flatMap(\.subscriptions)
            await first.stop()
            try #require(!subscribed.isEmpty, "the store held the live subscription")

            // The record still holds it, as when another central's link had not yet ended.
            let record = try #require(store.records().first)
            try store.update(address: record.address, type: record.addressType) { $0.subscriptions = subscribed }

            let second = try rig.gateway(configuration, store: store)
            await second.start()
            let before = observer.messages.count
            let value = await observer.first(after: before, within: .seconds(120)) { _ in true }
            #expect(value != nil, "the restored subscription's values are published")
            await second.stop()
        }
    }
}
