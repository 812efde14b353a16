import Testing
@testable import Attune

/// `stopScan()` ends every scan of a manager, as `CBCentralManager.stopScan()` does:
/// what a process calls before exiting so the controller is not left scanning.
@Suite("stopScan", .timeLimit(.minutes(10)))
struct StopScanTests {
    @Test func stopScanEndsEveryScanStream() async throws {
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        let first = try central.scan(), second = try central.scan(allowDuplicates: true)
        let ended = Task {
            for await _ in first {}
            for await _ in second {}
            return true
        }
        await central.stopScan()
        #expect(try await within("both scans ended") { await ended.value })
    }
}
