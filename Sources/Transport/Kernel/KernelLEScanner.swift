import EventLoop
import HCI
import Synchronization

/// LE scanning through raw HCI sockets on one adapter: legacy scan commands
/// on one socket, advertising reports read from another.
///
/// bluetoothd, when it runs, scans the same controller through mgmt; while
/// its scan is on, expect the controller to refuse ours (untested), which
/// surfaces as ``HCICommandError``. See ``BluetoothDaemonPresence``.
public final class KernelLEScanner: Sendable {
    public let adapterIndex: UInt16
    private let commands: HCISocket
    private let events: HCISocket
    /// Chains of extended reports still being joined.
    private let assembler = Mutex(ExtendedReportAssembler())

    public init(adapterIndex: UInt16, loop: KernelEventLoop? = nil) throws {
        self.adapterIndex = adapterIndex
        commands = try HCISocket(adapterIndex: adapterIndex, events: [HCIEvent.Code.commandComplete, HCIEvent.Code.commandStatus], loop: loop)
        do {
            events = try HCISocket(adapterIndex: adapterIndex, events: [HCIEvent.Code.leMeta], loop: loop)
        } catch {
            commands.close()
            throw error
        }
    }

    static let setScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    static let setScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)

    /// Sets the parameters and enables scanning.
    public func start(_ parameters: LEScanParameters = LEScanParameters(), filterDuplicates: Bool = true) async throws {
        // A scan left on by an earlier run makes Set Scan Parameters fail.
        _ = try? await commands.command(Self.setScanEnable, parameters: [0, 0])
        _ = try await commands.command(Self.setScanParameters, parameters: parameters.commandParameters)
        _ = try await commands.command(Self.setScanEnable, parameters: [1, filterDuplicates ? 1 : 0])
    }

    /// Disables scanning, and forgets extended chains left half joined.
    public func stop() async throws {
        _ = try await commands.command(Self.setScanEnable, parameters: [0, 0])
        assembler.withLock { $0.reset() }
    }

    /// The reports of the next advertising report event, decoded by the HCI
    /// module; malformed events are skipped.
    public func nextReports(timeout: Duration? = nil) async throws -> [LEAdvertisingReport] {
        while true {
            if case .leAdvertisingReport(let reports) = try await events.nextEvent(timeout: timeout) { return reports }
        }
    }

    /// The next reports of either kind, in the extended shape: legacy reports,
    /// and extended ones (which arrive when the kernel or another host on the
    /// controller scans with the extended commands) with chained data joined.
    /// Malformed events are skipped.
    public func nextAdvertisingReports(timeout: Duration? = nil) async throws -> [AdvertisingReport] {
        while true {
            let event = try await events.nextEvent(timeout: timeout)
            let reports = assembler.withLock { Self.advertisingReports(in: event, assembler: &$0) }
            if !reports.isEmpty { return reports }
        }
    }

    /// The whole reports one event completes; sans-I/O, for tests.
    static func advertisingReports(in event: HCIEvent, assembler: inout ExtendedReportAssembler) -> [AdvertisingReport] {
        switch event {
        case .leAdvertisingReport(let reports): reports.map { AdvertisingReport(legacy: $0) }
        case .leExtendedAdvertisingReport(let reports): reports.compactMap { assembler.receive($0) }
        default: []
        }
    }

    /// Every report as it arrives; ends by throwing when the socket fails, and
    /// finishes when the scanner is closed.
    public var reports: Reports { Reports(scanner: self) }

    public struct Reports: AsyncSequence, Sendable {
        public typealias Element = LEAdvertisingReport
        let scanner: KernelLEScanner

        public struct AsyncIterator: AsyncIteratorProtocol {
            let scanner: KernelLEScanner
            var pending: [LEAdvertisingReport] = []

            public mutating func next() async throws -> LEAdvertisingReport? {
                while pending.isEmpty {
                    do {
                        pending = try await scanner.nextReports().reversed()
                    } catch let error as KernelTransportError where error.kind == .closed {
                        return nil
                    }
                }
                return pending.removeLast()
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(scanner: scanner) }
    }

    public func close() {
        commands.close()
        events.close()
    }
}
