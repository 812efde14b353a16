import ATT
import Testing
@testable import GATT

/// A read the application answers says which offset the client asked for, so that the
/// application (and `attune serve --json`, which logs it) knows a Read Blob from a Read.
@Suite struct ApplicationReadOffsetTests {
    @Test func aReadBlobHandsTheApplicationItsOffset() {
        var h = ServerHarness(testDatabase())
        let v = h.handle(of: 0x2A3B)
        let value = (0..<40).map { UInt8($0) }
        _ = h.send("0a" + le(v))
        guard case .readRequested(let read) = h.events.last else { Issue.record("no app read"); return }
        #expect(read.offset == 0)
        h.server.completeRead(read.id, with: .success(value), at: h.now, into: &h.out)
        #expect(h.drain() == ["0b" + hexString(value[..<22])])
        // Read Blob at 22: the request says 22; the application still gives the whole
        // value and the server takes it from the offset.
        _ = h.send("0c" + le(v) + "1600")
        guard case .readRequested(let blob) = h.events.last else { Issue.record("no app read"); return }
        #expect(blob.offset == 22)
        h.server.completeRead(blob.id, with: .success(value), at: h.now, into: &h.out)
        #expect(h.drain() == ["0d" + hexString(value[22...])])
    }
}
