import ATT
import Testing
@testable import GATT

@Suite("Client engine: queuing, timeout, security, subscriptions")
struct ClientEngineTests {
    @Test func exchangeMTUNegotiatesTheSmaller() {
        var h = ClientHarness(mtu: 247)
        #expect(h.connection.mtu == 247)
        h = ClientHarness(mtu: 517)
        #expect(h.connection.mtu == 517)
    }

    @Test func proceduresQueueOneRequestAtATime() {
        var h = ClientHarness()
        let a = h.perform(.readValue(1))
        let b = h.perform(.writeValue(2, [9]))
        let c = h.perform(.readValue(3))
        #expect(h.sent.count == 1)
        #expect(h.nextSent() == "0a0100")
        h.receive(hex: "0b11")
        #expect(h.nextSent() == "12020009")
        h.receive(hex: "13")
        #expect(h.nextSent() == "0a0300")
        h.receive(hex: "0b33")
        #expect(h.results[a]?.success == .value([0x11]))
        #expect(h.results[b]?.success == .done)
        #expect(h.results[c]?.success == .value([0x33]))
    }

    @Test func cancelQueuedAndRunning() {
        var h = ClientHarness()
        let a = h.perform(.readValue(1))
        let b = h.perform(.readValue(2))
        let c = h.perform(.readValue(3))
        h.take(h.connection.cancel(b, at: h.now))
        #expect(h.results[b]?.failure == .cancelled)
        h.take(h.connection.cancel(a, at: h.now))
        #expect(h.results[a]?.failure == .cancelled)
        #expect(h.nextSent() == "0a0100")
        #expect(h.sent.isEmpty)                    // still waiting for a's response
        h.receive(hex: "0b11")                     // discarded
        #expect(h.nextSent() == "0a0300")
        h.receive(hex: "0b33")
        #expect(h.results[c]?.success == .value([0x33]))
    }

    @Test func cancelledLongWriteIsCancelledOnTheServer() {
        var h = ClientHarness()
        let a = h.perform(.writeLongValue(7, Array(repeating: 1, count: 40)))
        #expect(h.nextSent().hasPrefix("16070000"))
        h.take(h.connection.cancel(a, at: h.now))
        h.receive(hex: "17070000" + String(repeating: "01", count: 18))
        #expect(h.nextSent() == "1800")
        h.receive(hex: "19")
        #expect(h.results[a]?.failure == .cancelled)
    }

    @Test func transactionTimeoutFailsEverythingAndKillsTheBearer() {
        var h = ClientHarness()
        let a = h.perform(.readValue(1))
        let b = h.perform(.readValue(2))
        #expect(h.deadline == MonotonicTime.seconds(30))
        h.advance(by: 29.9)
        #expect(h.results[a] == nil)
        h.advance(by: 0.2)
        #expect(h.results[a]?.failure == .transactionTimeout)
        #expect(h.results[b]?.failure == .transactionTimeout)
        #expect(h.closed == .transactionTimeout)
        h.sent.removeAll()
        let c = h.perform(.readValue(3))
        #expect(h.results[c]?.failure == .transactionTimeout, "a later command fails with what killed the bearer")
        h.receive(hex: "0b11")                     // a late response changes nothing
        h.receive(hex: "1d030001")                 // nor does an indication: nothing is sent
        #expect(h.sent.isEmpty)
    }

    @Test func securityRetryOnceWhenTheLinkCanRaiseIt() {
        var h = ClientHarness(configuration: GATTClientConfiguration(canRaiseSecurity: true))
        let a = h.perform(.readValue(4))
        #expect(h.nextSent() == "0a0400")
        h.receive(hex: "010a04000f")
        #expect(h.raisedSecurity == 1)
        #expect(h.nextSent() == "0a0400")
        h.receive(hex: "010a040005")               // a second refusal is reported
        #expect(h.results[a]?.failure?.attErrorCode == .insufficientAuthentication)
        #expect(h.raisedSecurity == 1)
    }

    @Test func securityErrorReportedWhenTheLinkCannotRaiseIt() {
        var h = ClientHarness()
        let a = h.perform(.readValue(4))
        _ = h.nextSent()
        h.receive(hex: "010a040005")
        #expect(h.results[a]?.failure?.attErrorCode == .insufficientAuthentication)
        #expect(h.raisedSecurity == 0)
    }

    static let heartRate = DiscoveredDatabase(services: [
        DiscoveredService(uuid: 0x180D, handleRange: AttributeHandleRange(start: 1, end: 8), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 2, properties: [.notify, .indicate], valueHandle: 3, uuid: 0x2A37, endHandle: 4,
                                     descriptors: [DiscoveredDescriptor(handle: 4, uuid: 0x2902)]),
            DiscoveredCharacteristic(declarationHandle: 5, properties: [.read], valueHandle: 6, uuid: 0x2A38, endHandle: 8),
        ]),
    ])

    @Test func subscriptionsAreCountedPerCharacteristic() {
        var h = ClientHarness(database: Self.heartRate)
        let a = h.perform(.subscribe(valueHandle: 3))
        #expect(h.nextSent() == "1204000100")
        h.receive(hex: "13")
        #expect(h.results[a]?.success == .done)
        let b = h.perform(.subscribe(valueHandle: 3))
        #expect(h.sent.isEmpty)                    // second subscriber: no write
        #expect(h.results[b]?.success == .done)
        let c = h.perform(.subscribe(valueHandle: 3, .indicate))
        #expect(h.nextSent() == "1204000300")        // both kinds now
        h.receive(hex: "13")
        _ = c
        h.perform(.unsubscribe(valueHandle: 3))
        #expect(h.sent.isEmpty)                    // one notify subscriber left
        h.perform(.unsubscribe(valueHandle: 3))
        #expect(h.nextSent() == "1204000200")        // notify gone, indicate stays
        h.receive(hex: "13")
        h.perform(.unsubscribe(valueHandle: 3))
        #expect(h.nextSent() == "1204000000")
        h.receive(hex: "13")
        #expect(h.connection.client.subscriberCount(valueHandle: 3) == 0)
        let d = h.perform(.subscribe(valueHandle: 6))
        #expect(h.results[d]?.failure != nil)      // no CCCD
    }

    @Test func failedCCCDWriteDoesNotCount() {
        var h = ClientHarness(database: Self.heartRate)
        let a = h.perform(.subscribe(valueHandle: 3))
        _ = h.nextSent()
        h.receive(hex: "0112040003")
        #expect(h.results[a]?.failure?.attErrorCode == .writeNotPermitted)
        #expect(h.connection.client.subscriberCount(valueHandle: 3) == 0)
    }

    @Test func notificationsAndMultipleNotificationsAreDelivered() {
        var h = ClientHarness()
        h.receive(hex: "1b0300aabb")
        h.receive(hex: "23" + "03000100cc" + "06000200ddee")
        #expect(h.events == [.notification(3, [0xAA, 0xBB][...]), .notification(3, [0xCC][...]), .notification(6, [0xDD, 0xEE][...])])
        #expect(h.sent.isEmpty)
    }

    @Test func longReadUsesReadThenBlobUntilAShortPart() {
        var h = ClientHarness()
        let id = h.perform(.readLongValue(3))
        #expect(h.nextSent() == "0a0300")
        h.receive([0x0B] + Array(0..<22))
        #expect(h.nextSent() == "0c03001600")
        h.receive([0x0D] + Array(22..<44))
        #expect(h.nextSent() == "0c03002c00")
        h.receive([0x0D] + Array(44..<50))
        #expect(h.results[id]?.success == .value(Array(0..<50)))
    }

    @Test func readMultipleVariableCompletesTruncatedValues() {
        var h = ClientHarness()
        let id = h.perform(.readMultipleVariable([3, 7]))
        #expect(h.nextSent() == "2003000700")
        // 22 bytes: value of 3 (2 bytes) then 7 announced as 30 bytes with 16 present.
        h.receive([0x21, 0x02, 0x00, 0xA1, 0xA2, 0x1E, 0x00] + Array(repeating: 7, count: 16))
        #expect(h.nextSent() == "0c07001000")
        h.receive([0x0D] + Array(repeating: 7, count: 14))
        #expect(h.results[id]?.success == .values([[0xA1, 0xA2], Array(repeating: 7, count: 30)]))
    }

    @Test func writeLongSplitsAtMTUMinusFive() {
        var h = ClientHarness()
        let value = Array(UInt8(0)..<40)
        let id = h.perform(.writeLongValue(7, value))
        #expect(h.nextSent() == "1607000000" + hexString(value[0..<18]))
        h.receive(hex: "1707000000" + hexString(value[0..<18]))
        #expect(h.nextSent() == "16070012" + "00" + hexString(value[18..<36]))
        h.receive(hex: "170700120" + "0" + hexString(value[18..<36]))
        #expect(h.nextSent() == "16070024" + "00" + hexString(value[36..<40]))
        h.receive(hex: "17070024" + "00" + hexString(value[36..<40]))
        #expect(h.nextSent() == "1801")
        h.receive(hex: "19")
        #expect(h.results[id]?.success == .done)
    }

    @Test func writeWithoutResponseRefusesOverlongValues() {
        var h = ClientHarness()
        let a = h.perform(.writeWithoutResponse(7, Array(repeating: 0, count: 21)))
        #expect(h.results[a]?.failure != nil)
        #expect(h.sent.isEmpty)
        let b = h.perform(.writeWithoutResponse(7, Array(repeating: 0, count: 20)))
        #expect(h.results[b]?.success == .done)
        #expect(h.sent.count == 1)
    }

    @Test func aesCMACMatchesRFC4493() {
        let key = parseHex("2b7e151628aed2a6abf7158809cf4f3c")!
        #expect((try? AESCMAC.mac(key: key, message: [])) == parseHex("bb1d6929e95937287fa37d129b756746"))
        let m = parseHex("6bc1bee22e409f96e93d7e117393172a")!
        #expect((try? AESCMAC.mac(key: key, message: m)) == parseHex("070a16b46b4d4144f79bdd9dd04a287c"))
    }

    @Test func signedWriteCarriesCounterAndAdvancesIt() {
        let csrk = parseHex("d8515948451fea320dc05a2e88308188")!
        var h = ClientHarness(configuration: GATTClientConfiguration(signingKey: SigningKey(csrk: csrk)))
        h.perform(.signedWriteWithoutResponse(7, [1, 2, 3]))
        let first = h.sent.removeFirst()
        #expect(first.count == 6 + 12)
        #expect(Array(first[0..<6]) == [0xD2, 0x07, 0x00, 1, 2, 3])
        #expect(Array(first[6..<10]) == [0, 0, 0, 0])
        h.perform(.signedWriteWithoutResponse(7, [1, 2, 3]))
        let second = h.sent.removeFirst()
        #expect(Array(second[6..<10]) == [1, 0, 0, 0])
        #expect(first[10...] != second[10...])
        // The server's verifier accepts what the client signed.
        #expect(ATTSignature.verify(signedPDU: first[...], csrk: csrk))
        #expect(ATTSignature.verify(signedPDU: second[...], csrk: csrk))
    }
}
