import Testing
import ATT
@testable import GATT
import HexTestSupport

@Suite struct ClientConfigurationTests {
    @Test func cccdStateIsPerClient() {
        var h = ServerHarness(testDatabase(), connections: [1, 2])
        let value = h.handle(of: 0x2A37), cccd = h.cccd(of: 0x2A37)
        #expect(h.send("12" + le(cccd) + "0100", from: 1) == ["13"])
        #expect(h.send("0a" + le(cccd), from: 1) == ["0b0100"])
        #expect(h.send("0a" + le(cccd), from: 2) == ["0b0000"])
        #expect(h.events.contains(.subscriptionChanged(1, characteristic: value, .notification)))
        let sent = try! h.server.notify([9, 9], characteristic: value, into: &h.out)
        #expect(sent == [1])
        #expect(h.drain(1) == ["1b" + le(value) + "0909"])
        #expect(h.drain(2).isEmpty)
    }

    @Test func cccdWritesFollowTheProperties() {
        var h = ServerHarness(testDatabase())
        let cccd = h.cccd(of: 0x2A37)  // notify only
        #expect(h.send("12" + le(cccd) + "0200") == ["0112" + le(cccd) + "fd"])
        #expect(h.send("12" + le(cccd) + "0400") == ["0112" + le(cccd) + "fc"])
        #expect(h.send("12" + le(cccd) + "010000") == ["0112" + le(cccd) + "0d"])
        let ind = h.cccd(of: 0x2A38)  // indicate only
        #expect(h.send("12" + le(ind) + "0200") == ["13"])
    }

    @Test func bondedClientConfigurationPersists() {
        var h = ServerHarness(testDatabase(), connections: [])
        let peer = PeerIdentity("C0:FF:EE:00:00:01")
        h.server.connect(1, peer: peer)
        let cccd = h.cccd(of: 0x2A37)
        _ = h.send("12" + le(cccd) + "0100")
        h.server.disconnect(1, into: &h.out)
        _ = h.drain()
        h.server.connect(7, peer: peer)
        #expect(h.send("0a" + le(cccd), from: 7) == ["0b0100"])
        h.server.connect(8, peer: PeerIdentity("other"))
        #expect(h.send("0a" + le(cccd), from: 8) == ["0b0000"])
    }
}

@Suite struct PrepareWriteTests {
    @Test func queueIsBoundedPerClient() {
        var config = GATTServerConfiguration()
        config.prepareQueueLimit = 3
        var h = ServerHarness(testDatabase(), configuration: config, connections: [1, 2])
        let v = le(h.handle(of: 0x2A39))
        for i in 0..<3 { #expect(h.send("16" + v + le(AttributeHandle(UInt16(i))) + "aa", from: 1).first?.hasPrefix("17") == true) }
        #expect(h.send("16" + v + "0300aa", from: 1) == ["0116" + v + "09"])
        // Another client has its own queue.
        #expect(h.send("16" + v + "0000bb", from: 2) == ["17" + v + "0000bb"])
        #expect(h.send("1800", from: 1) == ["19"])
        #expect(h.send("16" + v + "0000aa", from: 1) == ["17" + v + "0000aa"])
    }

    @Test func executeIsAllOrNothing() {
        var h = ServerHarness(testDatabase())
        let a = le(h.handle(of: 0x2A39)), b = le(h.handle(of: 0x2A3E))
        // b is empty: offset 1 is past its end.
        _ = h.send("16" + a + "0000aabb")
        _ = h.send("16" + b + "0100cc")
        #expect(h.send("1801") == ["0118" + b + "07"])
        #expect(h.send("0a" + a) == ["0b0000"], "the valid write must not be applied")
        // The queue was discarded with the failed execute.
        #expect(h.send("1801") == ["19"])
        #expect(h.send("0a" + a) == ["0b0000"])
    }

    @Test func executeChecksMaximumLengthBeforeApplying() {
        var h = ServerHarness(testDatabase())
        let small = le(h.handle(of: 0x2A3A))  // at most 4 octets
        _ = h.send("16" + small + "0000010203")
        _ = h.send("16" + small + "03000405")
        #expect(h.send("1801") == ["0118" + small + "0d"])
        #expect(h.send("0a" + small) == ["0b09"])
    }

    @Test func reliableWriteNeedsTheExtendedProperty() {
        var h = ServerHarness(testDatabase())
        let reliable = le(h.handle(of: 0x2A39)), plain = le(h.handle(of: 0x2A3A))
        _ = h.send("16" + reliable + "00000102")
        _ = h.send("16" + plain + "000005")
        #expect(h.send("1801") == ["0118" + plain + "06"])
        #expect(h.send("0a" + reliable) == ["0b0000"])
        // Both reliable: applied together.
        let other = le(h.handle(of: 0x2A3E))
        _ = h.send("16" + reliable + "00000102")
        _ = h.send("16" + other + "000003")
        #expect(h.send("1801") == ["19"])
        #expect(h.send("0a" + reliable) == ["0b0102"])
        #expect(h.send("0a" + other) == ["0b03"])
    }

    @Test func longWriteLeavesExactlyTheWrittenValue() {
        var h = ServerHarness(testDatabase())
        let v = le(h.handle(of: 0x2A3E))
        _ = h.send("16" + v + "0000" + String(repeating: "11", count: 18))
        _ = h.send("16" + v + "1200" + "2222")
        #expect(h.send("1801") == ["19"])
        #expect(h.send("0a" + v) == ["0b" + String(repeating: "11", count: 18) + "2222"])
        // A shorter long write shrinks it again.
        _ = h.send("16" + v + "000033")
        _ = h.send("1801")
        #expect(h.send("0a" + v) == ["0b33"])
    }
}

@Suite struct RequestRuleTests {
    @Test func writeRequestReplacesTheWholeValue() {
        var h = ServerHarness(testDatabase())
        let v = le(h.handle(of: 0x2A39))
        #expect(h.send("12" + v + "07") == ["13"])
        #expect(h.send("0a" + v) == ["0b07"])
    }

    @Test func readBlobPastTheEndIsInvalidOffset() {
        var h = ServerHarness(testDatabase())
        let empty = le(h.handle(of: 0x2A3E))
        #expect(h.send("0c" + empty + "0100") == ["010c" + empty + "07"])
        #expect(h.send("0c" + empty + "0000") == ["0d"])
        let three = le(h.handle(of: 0x2A37))
        #expect(h.send("0c" + three + "0300") == ["0d"])
        #expect(h.send("0c" + three + "0400") == ["010c" + three + "07"])
    }

    @Test func findByTypeValueWithStartZeroIsInvalidHandle() {
        var h = ServerHarness(testDatabase())
        #expect(h.send("060000ffff00280d18") == ["0106000001"])
        #expect(h.send("060100ffff00280d18") == ["070b001f00"])
    }

    @Test func invalidRangesAndUnsupportedGroupType() {
        var h = ServerHarness(testDatabase())
        #expect(h.send("0405000400") == ["0104050001"])
        #expect(h.send("080000ffff0328") == ["0108000001"])
        #expect(h.send("100100ffff0328") == ["0110010010"])
    }

    @Test func unknownAndMalformedRequests() {
        var h = ServerHarness(testDatabase())
        #expect(h.send("3f0102") == ["013f000006"])
        #expect(h.send("7f0102").isEmpty, "unknown commands are ignored")
        #expect(h.send("0a01") == ["010a000004"])
    }

    @Test func securityChecks() {
        var config = GATTServerConfiguration()
        let seen = HandleRecorder()
        config.authorize = { _, handle, isWrite in seen.record(handle); return isWrite }
        var h = ServerHarness(testDatabase(), configuration: config)
        let v = h.handle(of: 0x2A3C)
        #expect(h.send("0a" + le(v)) == ["010a" + le(v) + "0f"])
        h.server.updateSecurity(.encrypted, for: 1)
        #expect(h.send("0a" + le(v)) == ["0b07"])
        #expect(h.send("12" + le(v) + "08") == ["13"])
        #expect(seen.handles == [v], "the authorization hook gets the real handle")
    }

    @Test func readMultipleVariableTruncatesToMTU() {
        var h = ServerHarness(testDatabase())
        let a = le(h.handle(of: 0x2A37)), b = le(h.handle(of: 0x2A38))
        #expect(h.send("20" + a + b) == ["210300010203" + "010004"])
        #expect(h.send("0e" + a + b) == ["0f01020304"])
    }
}

final class HandleRecorder: @unchecked Sendable {
    private(set) var handles: [AttributeHandle] = []
    func record(_ h: AttributeHandle) { handles.append(h) }
}

@Suite struct RobustCachingTests {
    static let csf = "1206000100"  // Client Supported Features (handle 6) = robust caching

    @Test func changeUnawareClientGetsOutOfSyncOnce() throws {
        var h = ServerHarness(testDatabase())
        #expect(h.send(Self.csf) == ["13"])
        try h.server.modifyDatabase(at: h.now, into: &h.out) { db throws(DatabaseError) in
            try db.insert(HandleAllocator.allocate([Service(BluetoothUUID(0x180F), handle: 0x0100)]))
        }
        #expect(!h.server.isChangeAware(1))
        #expect(h.send("0a0300") == ["010a000012"])
        #expect(h.send("520d0001").isEmpty, "commands from a change-unaware client are ignored")
        // The next request after the error makes it change-aware and is served.
        #expect(h.send("0a0d00") == ["0b010203"])
        #expect(h.server.isChangeAware(1))
        #expect(h.send("0a0d00") == ["0b010203"])
    }

    @Test func readingTheDatabaseHashMakesTheClientAware() throws {
        var h = ServerHarness(testDatabase())
        _ = h.send(Self.csf)
        try h.server.modifyDatabase(at: h.now, into: &h.out) { db throws(DatabaseError) in
            try db.removeService(at: 11)
        }
        let hash = hexString(h.server.database.hash)
        #expect(h.send("080100ffff2a2b") == ["0912" + "0800" + hash])
        #expect(h.server.isChangeAware(1))
        #expect(h.send("0a0300").first?.hasPrefix("01") == true, "Service Changed value is not readable")
    }

    @Test func clientsWithoutRobustCachingAreNeverOutOfSync() throws {
        var h = ServerHarness(testDatabase())
        try h.server.modifyDatabase(at: h.now, into: &h.out) { db throws(DatabaseError) in try db.removeService(at: 11) }
        #expect(h.send("0a0800") == ["0b" + hexString(h.server.database.hash)])
    }

    @Test func clientSupportedFeaturesCannotBeCleared() {
        var h = ServerHarness(testDatabase())
        _ = h.send(Self.csf)
        #expect(h.send("1206000000") == ["0112060013"])
        #expect(h.send("0a0600") == ["0b01"])
    }

    @Test func serviceChangedIsIndicatedAndConfirmationMakesAware() throws {
        var h = ServerHarness(testDatabase())
        _ = h.send(Self.csf)
        #expect(h.send("1204000200") == ["13"])
        try h.server.modifyDatabase(at: h.now, into: &h.out) { db throws(DatabaseError) in
            try db.insert(HandleAllocator.allocate([Service(BluetoothUUID(0x180F), handle: 0x0100)]))
        }
        #expect(h.drain() == ["1d0300" + "00010001"])
        #expect(h.send("1e").isEmpty)
        #expect(h.server.isChangeAware(1))
    }
}

@Suite struct IndicationTests {
    @Test func indicationsQueueBehindTheOutstandingOne() throws {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A38)
        _ = h.send("12" + le(h.cccd(of: 0x2A38)) + "0200")
        let first = try h.server.indicate([1], characteristic: v, at: h.now, into: &h.out)[1]!
        let second = try h.server.indicate([2], characteristic: v, at: h.now, into: &h.out)[1]!
        #expect(h.drain() == ["1d" + le(v) + "01"])
        #expect(h.send("1e") == ["1d" + le(v) + "02"])
        #expect(h.events.contains(.indicationCompleted(first, 1, .confirmed)))
        #expect(h.send("1e").isEmpty)
        #expect(h.events.contains(.indicationCompleted(second, 1, .confirmed)))
    }

    @Test func unconfirmedIndicationTimesOut() throws {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A38)
        _ = h.send("12" + le(h.cccd(of: 0x2A38)) + "0200")
        let first = try h.server.indicate([1], characteristic: v, at: h.now, into: &h.out)[1]!
        let second = try h.server.indicate([2], characteristic: v, at: h.now, into: &h.out)[1]!
        _ = h.drain()
        #expect(h.server.deadline == .zero + .seconds(30))
        #expect(h.tick(.seconds(29)).isEmpty)
        #expect(h.tick(.seconds(30)).isEmpty, "nothing more is sent after a transaction timeout")
        #expect(h.events.contains(.indicationCompleted(first, 1, .failed(.indicationTimeout))))
        #expect(h.events.contains(.indicationCompleted(second, 1, .failed(.indicationTimeout))))
        #expect(h.events.contains(.connectionClosed(1, .indicationTimeout)))
        #expect(h.server.connectionIDs.isEmpty)
        #expect(h.send("0a0300").isEmpty)
    }

    @Test func notificationsTruncateToMTUMinus3AndMultipleWhenSupported() throws {
        var h = ServerHarness(testDatabase())
        let a = h.handle(of: 0x2A37)
        _ = h.send("12" + le(h.cccd(of: 0x2A37)) + "0100")
        try h.server.notify(Array(repeating: 0xAB, count: 30), characteristic: a, into: &h.out)
        #expect(h.drain() == ["1b" + le(a) + String(repeating: "ab", count: 20)])
        #expect(throws: GATTServerError.propertyNotSupported(h.handle(of: 0x2A39))) {
            try h.server.notify([1], characteristic: h.handle(of: 0x2A39), into: &h.out)
        }
        _ = h.send("1206000400")
        try h.server.notifyMultiple([(a, [1]), (a, [2, 3])], into: &h.out)
        #expect(h.drain() == ["23" + le(a) + "010001" + le(a) + "02000203"])
    }
}

@Suite struct ProtocolViolationTests {
    @Test func requestWhileOneIsPendingClosesSilently() {
        var h = ServerHarness(testDatabase())
        let dynamic = le(h.handle(of: 0x2A3B))
        #expect(h.send("0a" + dynamic).isEmpty)
        guard case .readRequested = h.events.last else { Issue.record("no app read"); return }
        #expect(h.send("0a0300").isEmpty)
        #expect(h.events.contains(.connectionClosed(1, .requestWhileRequestPending(.readRequest))))
        #expect(h.server.connectionIDs.isEmpty)
    }

    @Test func confirmationWithoutIndicationClosesSilently() {
        var h = ServerHarness(testDatabase())
        #expect(h.send("1e").isEmpty)
        #expect(h.events.contains(.connectionClosed(1, .unexpectedConfirmation)))
    }
}

@Suite struct ApplicationValueTests {
    @Test func dynamicReadIsAnsweredByTheApplication() {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A3B)
        _ = h.send("0a" + le(v))
        guard case .readRequested(let r) = h.events.last else { Issue.record("no app read"); return }
        #expect(r.handle == v && r.deadline == .zero + .seconds(10))
        #expect(h.server.completeRead(r.id, with: .success([5, 6]), at: h.now, into: &h.out))
        #expect(h.drain() == ["0b0506"])
        // Read By Type over it asks again and builds the list with the answer.
        _ = h.send("08" + le(v) + le(v) + "3b2a")
        guard case .readRequested(let r2) = h.events.last else { Issue.record("no app read"); return }
        h.server.completeRead(r2.id, with: .success([7]), at: h.now, into: &h.out)
        #expect(h.drain() == ["0903" + le(v) + "07"])
    }

    @Test func lateApplicationAnswerGetsUnlikelyError() {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A3B)
        _ = h.send("0a" + le(v))
        guard case .readRequested(let r) = h.events.last else { Issue.record("no app read"); return }
        #expect(h.tick(.seconds(10)) == ["010a" + le(v) + "0e"])
        #expect(h.events.contains(.applicationRequestExpired(r.id)))
        #expect(!h.server.completeRead(r.id, with: .success([1]), at: h.now, into: &h.out))
        #expect(h.drain().isEmpty)
        #expect(h.send("0a0d00") == ["0b010203"])
    }

    @Test func dynamicWritesAndErrors() {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A3B)
        _ = h.send("12" + le(v) + "0102")
        guard case .writeRequested(let w) = h.events.last else { Issue.record("no app write"); return }
        #expect(w.writes == [ApplicationWrite(handle: v, offset: 0, value: [1, 2])] && w.expectsResponse)
        h.server.completeWrite(w.id, error: nil, at: h.now, into: &h.out)
        #expect(h.drain() == ["13"])
        _ = h.send("12" + le(v) + "03")
        guard case .writeRequested(let w2) = h.events.last else { Issue.record("no app write"); return }
        h.server.completeWrite(w2.id, error: ATTErrorCode(0x80), at: h.now, into: &h.out)
        #expect(h.drain() == ["0112" + le(v) + "80"])
    }

    /// The application sees parts only, so the engine keeps a long write within the
    /// 512-octet attribute maximum (Vol 3 Part F §3.2.9) before handing it over.
    @Test func aDynamicLongWritePast512OctetsIsRefusedBeforeTheApplication() {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A3B)
        #expect(h.send("16" + le(v) + "0002" + "01") == ["17" + le(v) + "0002" + "01"])
        let before = h.events.count
        #expect(h.send("1801") == ["0118" + le(v) + "0d"])
        #expect(h.events.count == before, "no write reaches the application")
    }
}

@Suite struct SignedWriteTests {
    static let csrk = bytes("d8515948451fea320dc05a2e88308188")

    @Test func signatureRoundTripAndTamper() throws {
        let pdu = try ATTSignature.signedWriteCommand(handle: 7, value: [1, 2, 3], csrk: Self.csrk, signCounter: 0)
        #expect(pdu.count == 1 + 2 + 3 + 12)
        #expect(ATTSignature.verify(signedPDU: pdu[...], csrk: Self.csrk))
        var bad = pdu
        bad[4] ^= 1
        #expect(!ATTSignature.verify(signedPDU: bad[...], csrk: Self.csrk))
    }

    @Test func serverVerifiesAndRejectsReplays() throws {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A3D)
        h.server.setSigningKey(Self.csrk, authenticated: false, for: 1)
        let first = try ATTSignature.signedWriteCommand(handle: v, value: [0x42], csrk: Self.csrk, signCounter: 1)
        #expect(h.send(hexString(first)).isEmpty)
        #expect(h.send("0a" + le(v)) == ["0b42"])
        // Replayed counter: dropped.
        let replay = try ATTSignature.signedWriteCommand(handle: v, value: [0x43], csrk: Self.csrk, signCounter: 1)
        _ = h.send(hexString(replay))
        #expect(h.send("0a" + le(v)) == ["0b42"])
        // Bad signature: dropped silently.
        var forged = try ATTSignature.signedWriteCommand(handle: v, value: [0x44], csrk: Self.csrk, signCounter: 2)
        forged[forged.count - 1] ^= 0xFF
        #expect(h.send(hexString(forged)).isEmpty)
        #expect(h.send("0a" + le(v)) == ["0b42"])
        #expect(h.events.contains(.signedWriteDropped(1, v)))
        let next = try ATTSignature.signedWriteCommand(handle: v, value: [0x45], csrk: Self.csrk, signCounter: 2)
        _ = h.send(hexString(next))
        #expect(h.send("0a" + le(v)) == ["0b45"])
    }
}

@Suite struct BondedServiceChangedTests {
    @Test func bondedClientAwayDuringAChangeIsIndicatedOnReconnection() throws {
        var h = ServerHarness(testDatabase(), connections: [])
        let peer = PeerIdentity("bonded")
        h.server.connect(1, peer: peer)
        #expect(h.send("1204000200") == ["13"])
        h.server.disconnect(1, into: &h.out)
        _ = h.drain()
        try h.server.modifyDatabase(at: h.now, into: &h.out) { db throws(DatabaseError) in try db.removeService(at: 11) }
        #expect(h.drain().isEmpty)
        h.server.connect(2, peer: peer, at: h.now, into: &h.out)
        #expect(h.drain(2) == ["1d0300" + "0100ffff"])
        #expect(h.send("1e", from: 2).isEmpty)
        #expect(h.server.isChangeAware(2))
    }
}

@Suite struct QuietConnectTests {
    @Test func serviceChangedOwedAtAQuietConnectGoesOutWithTheNextOutput() throws {
        var h = ServerHarness(testDatabase(), connections: [])
        let peer = PeerIdentity("bonded")
        h.server.connect(1, peer: peer)
        _ = h.send("1204000200")
        h.server.disconnect(1, into: &h.out)
        _ = h.drain()
        try h.server.modifyDatabase(at: h.now, into: &h.out) { db throws(DatabaseError) in try db.removeService(at: 11) }
        h.server.connect(1, peer: peer)
        #expect(h.send("0a0300") == ["010a030002", "1d0300" + "0100ffff"])
        #expect(h.send("1e").isEmpty)
        #expect(h.server.deadline == nil)
    }
}
