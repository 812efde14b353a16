import Attune
import Synchronization

/// What a command holds that must be let go of before the process exits on a signal:
/// its managers' links, advertising and scanning. Commands register their managers
/// when they open them; ``run()`` disconnects every link (HCI Disconnect 0x13 on the
/// userland host, socket close on the kernel) and waits for each to be down, so the
/// peer learns at once and a `--snoop` capture holds the whole ending.
enum Shutdown {
    private static let registered = Mutex<[@Sendable () async -> Void]>([])

    static func register(_ central: CentralManager) {
        registered.withLock { $0.append {
            await central.stopScan()
            await central.cancelAllConnections()
        } }
    }

    static func register(_ manager: PeripheralManager) {
        registered.withLock { $0.append { await manager.disconnectAll() } }
    }

    /// Any other step a command must finish before exit (the gateway's offline messages).
    static func register(_ step: @escaping @Sendable () async -> Void) {
        registered.withLock { $0.append(step) }
    }

    private static let running = Mutex<Task<Void, Never>?>(nil)

    /// Runs every registered step, all at the same time; a second call waits for the
    /// first one's steps to finish rather than running them again.
    static func run() async {
        let task = running.withLock { running in
            if let running { return running }
            let steps = registered.withLock { $0 }
            let task = Task {
                await withTaskGroup(of: Void.self) { group in
                    for step in steps { group.addTask { await step() } }
                }
            }
            running = task
            return task
        }
        await task.value
    }
}
