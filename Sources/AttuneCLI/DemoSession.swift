import Attune

/// The in-process radio behind `attune demo` and `--transport memory`: the built-in
/// demo peripheral advertising on a ``MemoryRadio``, sending notifications and
/// indications to whoever subscribes, optionally recorded by a ``MemorySnoop``.
struct DemoSession {
    /// The demo's address: the first one a fresh radio hands out, and the demo's
    /// manager is the first controller made on it.
    static let demoAddress = BluetoothAddress(rawValue: 0xC0_00_00_00_00_01)

    let radio: MemoryRadio
    let demo: DemoPeripheral
    let snoop: MemorySnoop?
    private let updates: Task<Void, Never>

    static func start(snoopPath: String? = nil) async throws(CLIError) -> DemoSession {
        let radio = MemoryRadio()
        var snoop: MemorySnoop?
        if let snoopPath {
            do {
                snoop = try MemorySnoop(path: snoopPath)
            } catch {
                throw .failure("--snoop \(snoopPath): \(error) (check the directory exists and is writable)")
            }
            radio.setTap(snoop!.record)
        }
        let demo: DemoPeripheral
        do {
            demo = try await DemoPeripheral.start(on: .memory(radio))
        } catch {
            throw .failure("the demo peripheral did not start: \(error)")
        }
        let updates = Task { await demo.sendUpdates() }
        return DemoSession(radio: radio, demo: demo, snoop: snoop, updates: updates)
    }

    /// Stops the updates and finishes the capture.
    func stop() async throws(CLIError) {
        updates.cancel()
        await updates.value
        await demo.manager.stopAdvertising()
        radio.setTap(nil)
        do {
            try snoop?.finish()
        } catch {
            throw .failure("--snoop \(snoop!.path): \(error)")
        }
    }
}
