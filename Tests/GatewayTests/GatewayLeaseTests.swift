import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Testing

/// Two gateways on one broker and one memory radio, one keep device: exactly one owns it
/// through the lease, and when the owner dies without a clean stop the other takes it
/// over within 10 s.
@Suite(.serialized)
struct GatewayLeaseTests {
    /// Gateway `id` on the rig's broker and radio, with its offline will.
    static func gateway(_ id: String, on rig: GatewayTestRig) throws -> Gateway {
        try rig.gateway(rig.config(clientID: id, devices: [GatewayTestRig.heartRateDevice("demo")]), will: true)
    }

    static func via(_ message: MQTTMessage) -> String? {
        guard let text = message.text, let range = text.range(of: "\"via\": \"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test("one owner of a device among two gateways; the owner dies without DISCONNECT and the other takes over within 10 s",
          .timeLimit(.minutes(10)))
    func ownerDiesAndTheOtherTakesOver() async throws {
        try await GatewayTestRig.run { rig in
            _ = try await rig.demo()
            let observer = try rig.recorder("attune/#", id: "lease-observer")
            let gateways = ["a": try Self.gateway("a", on: rig), "b": try Self.gateway("b", on: rig)]
            await gateways["a"]?.start()
            await gateways["b"]?.start()

            let firstMessage = await observer.first { $0.topic == "attune/dev/demo/heart_rate" }
            let first = try #require(firstMessage)
            let ownerID = try #require(Self.via(first))
            let otherID = ownerID == "a" ? "b" : "a"
            let owner = try #require(gateways[ownerID]), other = try #require(gateways[otherID])
            // The retained record names the owner; a later subscriber finds it.
            let late = try rig.recorder("attune/dev/demo/owner", id: "lease-late")
            let record = await late.first { !$0.payload.isEmpty }
            #expect(record?.text?.hasPrefix("{\"gateway\":\"\(ownerID)\",") == true, "\(record?.text ?? "none")")
            await rig.close(late)
            // Five more values, waited for one by one: every one comes through the owner.
            let settled = observer.messages.count
            var next = settled
            for _ in 0..<5 {
                _ = await observer.first(after: next, within: hangGuard) { $0.topic == "attune/dev/demo/heart_rate" }
                let messages = observer.messages
                guard let index = messages.indices.dropFirst(next).first(where: { messages[$0].topic == "attune/dev/demo/heart_rate" })
                else { break }
                next = index + 1
            }
            let values = observer.messages.dropFirst(settled).filter { $0.topic == "attune/dev/demo/heart_rate" }
            #expect(values.count >= 5, "values flow: \(values.count)")
            #expect(values.allSatisfy { Self.via($0) == ownerID }, "only the owner connects: \(values.compactMap(Self.via))")
            // The explain topic is the device's: the owner's state, with its lease standing.
            let standing = observer.messages.last { $0.topic == "attune/dev/demo/explain" }?.text ?? ""
            #expect(standing.contains("\"lease\": \"mine\", \"owner\": \"\(ownerID)\""), "\(standing)")

            // The owner dies: its broker link closes without DISCONNECT (the broker sends its
            // will) and its central's links end, as a crashed process's would.
            let died = observer.messages.count
            let start = ContinuousClock.now
            await owner.abandon()
            let will = await observer.first(after: died) { $0.topic == "attune/gateway/\(ownerID)/status" && $0.text == "offline" }
            #expect(will != nil, "the broker published the will")
            let takenOver = await observer.first(after: died, within: hangGuard) { message in
                message.topic == "attune/dev/demo/heart_rate" && Self.via(message) == otherID
            }
            let elapsed = ContinuousClock.now - start
            print("lease takeover: \(elapsed) from the owner's death to the first value through \(otherID)")
            #expect(takenOver != nil, "the other gateway's values flow")
            #expect(elapsed < .seconds(10), "takeover within 10 s: \(elapsed)")
            let claimed = await observer.first(after: died) { $0.topic == "attune/dev/demo/owner" && ($0.text ?? "").contains("\"\(otherID)\"") }
            #expect(claimed != nil, "the owner record names the new owner")

            await other.stop()
        }
    }

    @Test("a gateway with a lower id that starts later leaves the device with its owner", .timeLimit(.minutes(10)))
    func aLaterGatewayLeavesTheOwnerAlone() async throws {
        try await GatewayTestRig.run { rig in
            _ = try await rig.demo()
            let observer = try rig.recorder("attune/#", id: "lease-incumbent-observer")
            let b = try Self.gateway("b", on: rig)
            await b.start()
            let owned = await observer.first { $0.topic == "attune/dev/demo/heart_rate" && Self.via($0) == "b" }
            try #require(owned != nil, "b owns the device")
            let a = try Self.gateway("a", on: rig)
            let joined = observer.messages.count
            await a.start()
            _ = await observer.first(after: joined) { $0.topic == "attune/gateway/a/status" && $0.text == "online" }
            // Two of b's renewals after a came online span more than a claim's settle time, so a
            // claim by a would have been published before the second (ordering, not a sleep).
            let renewedByB: @Sendable (MQTTMessage) -> Bool = { message in
                message.topic == "attune/dev/demo/owner" && (message.text ?? "").hasPrefix("{\"gateway\":\"b\",")
            }
            var seen = joined
            for _ in 0..<2 {
                let renewal = await observer.first(after: seen, within: hangGuard, where: renewedByB)
                try #require(renewal != nil, "b renews its lease")
                let messages = observer.messages
                seen = (messages.indices.dropFirst(seen).first { renewedByB(messages[$0]) } ?? messages.count) + 1
            }
            // And ten values since a came online, each waited for (renewals can come sooner).
            var flowing = observer.messages.dropFirst(joined).filter { $0.topic == "attune/dev/demo/heart_rate" }.count
            while flowing < 10 {
                let next = observer.messages.count
                guard await observer.first(after: next, within: hangGuard, where: { $0.topic == "attune/dev/demo/heart_rate" }) != nil
                else { break }
                flowing = observer.messages.dropFirst(joined).filter { $0.topic == "attune/dev/demo/heart_rate" }.count
            }
            let after = observer.messages.dropFirst(joined)
            let values = after.filter { $0.topic == "attune/dev/demo/heart_rate" }
            #expect(values.count >= 10 && values.allSatisfy { Self.via($0) == "b" }, "b keeps it: \(values.compactMap(Self.via))")
            let records = after.filter { $0.topic == "attune/dev/demo/owner" && !$0.payload.isEmpty }.compactMap(\.text)
            #expect(records.last?.hasPrefix("{\"gateway\":\"b\",") == true, "\(records)")
            #expect(!after.contains { $0.topic == "attune/dev/demo/availability" && $0.text == "offline" }, "the link never dropped")
            await a.stop()
            await b.stop()
        }
    }
}
