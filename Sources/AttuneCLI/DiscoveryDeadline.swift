import Attune
import Synchronization

/// `--discovery-timeout SECONDS`: how long a command may spend discovering the
/// peripheral's GATT tree, from the connection to the last descriptor, however slowly
/// or endlessly the server answers (a hostile one can declare a service per handle and
/// keep discovery going for hours). Past it the command disconnects and fails, naming
/// the option.
struct DiscoveryDeadline {
    static let defaultTimeout: Duration = .seconds(60)
    static let help = """
          --discovery-timeout SECONDS
                         give up discovering the GATT tree after SECONDS (default 60)
        """

    let timeout: Duration
    let seconds: Double
    /// When the connection was asked for: the clock runs from there, through the
    /// discovery made while connecting, to the end of the tree.
    private(set) var started = ContinuousClock.now

    /// Reads the option, before the transport is touched: a bad value is a usage error.
    init(_ arguments: Arguments) throws(CLIError) {
        timeout = try arguments.seconds("discovery-timeout", default: 60, in: 0.1...86_400)
        seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    }

    /// Starts the clock: call it just before connecting.
    mutating func start() { started = .now }

    /// ``CentralContext/tree(of:)``, ended by a disconnection when the deadline passes.
    func tree(of peripheral: Peripheral, on central: CentralManager) async throws(CLIError) -> [Service] {
        let deadline = started + timeout
        let expired = Atomic(false)
        let watchdog = Task { [deadline] in
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            expired.store(true, ordering: .sequentiallyConsistent)
            await central.cancelConnection(peripheral)
        }
        defer { watchdog.cancel() }
        do {
            return try await CentralContext.tree(of: peripheral)
        } catch {
            guard expired.load(ordering: .sequentiallyConsistent) else { throw error }
            let pdus = peripheral.statistics.pdusReceived
            throw .failure("discovery did not finish within \(Self.format(seconds)) s (\(pdus) ATT PDUs received, "
                           + "the server kept answering); disconnected. Give more time with --discovery-timeout SECONDS")
        }
    }

    private static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
