import Attune

/// The store the radio commands keep bonds and our host identity in: the ``FileStore``
/// in its default directory (`$ATTUNE_STORE`, else `~/.local/state/attune`) on the
/// userland host, where Attune pairs itself, and on the kernel transport, whose keys
/// from the kernel's pairings are kept there too (and loaded back into the kernel when
/// no bluetoothd owns its keys). Memory sessions keep nothing.
enum BondStore {
    static func open(for transport: BluetoothTransport) -> any Store {
        switch transport {
        case .h4, .userChannel, .kernel: return openFile()
        case .memory: return InMemoryStore()
        }
    }

    /// The default FileStore; a store that cannot be opened leaves the command running
    /// without one (it pairs as if new), and says so.
    static func openFile() -> any Store {
        do {
            let store = try FileStore()
            for problem in store.problems { Output.status("warning: \(problem)") }
            return store
        } catch {
            Output.status("warning: \(error); bonds will not be kept")
            return InMemoryStore()
        }
    }
}
