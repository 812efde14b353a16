import Attune
import Transport

/// The `--transport` option every radio command takes, like Bumble's transport names:
/// `hci0` (kernel), `tcp:HOST:PORT`, `unix:PATH`, `serial:PATH` (H4), `user:hci0` (HCI
/// user channel) or `memory` (an in-process radio with the demo peripheral on it).
enum TransportOption {
    static let help = """
          --transport T  hci0 (default: the first kernel adapter), tcp:HOST:PORT, unix:PATH,
                         serial:PATH, user:hci0, or memory (an in-process radio with the
                         built-in demo peripheral at \(DemoSession.demoAddress), no hardware)
          --snoop FILE   record the session as btsnoop (datalink 1002): every H4 packet on
                         tcp:, unix:, serial: and user:; on hci0 and memory, the HCI a
                         controller would have exchanged for each link (the kernel owns HCI)
          --snoop-keys   keep the link keys in the capture (LE Enable Encryption, LTK
                         replies, SMP key distribution); by default they are zeros
        """

    /// The `--snoop FILE` capture, opened before the session starts so a bad path fails
    /// the command at once.
    static func openSnoop(_ path: String?, keepingKeys: Bool = false) throws(CLIError) -> SnoopFile? {
        guard let path else { return nil }
        do { return try SnoopFile(path: path, keepsKeys: keepingKeys) } catch {
            throw .failure("--snoop \(path): \(error) (check the directory exists and is writable)")
        }
    }

    /// Fails the command when the capture stopped early (a full disk), so a short file is
    /// never mistaken for the whole session.
    static func checkSnoop(_ snoop: SnoopFile?) throws(CLIError) {
        if let snoop, let failure = snoop.failure { throw .failure("--snoop \(snoop.path): \(failure)") }
    }

    /// The transport named on the command line; nil for `memory`, which needs a radio.
    static func parse(_ text: String?) throws(CLIError) -> BluetoothTransport? {
        guard let text else { return .kernel(defaultAdapter()) }
        if text == "memory" { return nil }
        if text.hasPrefix("user:") {
            let name = String(text.dropFirst(5))
            guard isAdapterName(name) else { throw .usage("--transport user:NAME needs an adapter such as hci0") }
            return .userChannel(name)
        }
        if text.hasPrefix("tcp:") || text.hasPrefix("unix:") || text.hasPrefix("serial:") {
            do { return .h4(try H4Endpoint(parsing: text)) } catch { throw .usage("--transport: \(error)") }
        }
        if isAdapterName(text) { return .kernel(text) }
        throw .usage("unknown transport '\(text)': use hci0, tcp:HOST:PORT, unix:PATH, serial:PATH, user:hci0 or memory")
    }

    static func isAdapterName(_ name: String) -> Bool {
        name.hasPrefix("hci") && name.count > 3 && name.dropFirst(3).allSatisfy(\.isNumber)
    }

    /// The first LE adapter the kernel lists, else hci0 (whose absence the state check
    /// then explains).
    static func defaultAdapter() -> String {
        (try? KernelAdapter.list())?.first(where: \.supportsLowEnergy)?.name ?? "hci0"
    }

    /// Fails with the cause and its fix unless the kernel's Bluetooth can serve
    /// `transport`: facts from the kernel come first, because a missing AF_BLUETOOTH
    /// says more than any manager could.
    static func requireKernel(for transport: BluetoothTransport) throws(CLIError) {
        switch transport {
        case .kernel(let name), .userChannel(let name):
            if let cause = KernelFacts(adapter: name).cause { throw .failure(cause.description) }
        case .h4, .memory:
            break
        }
    }
}
