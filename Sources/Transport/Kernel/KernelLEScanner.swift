/// LE scanning through raw HCI sockets on one adapter: legacy scan commands
/// on one socket, advertising reports read from another.
///
/// With bluetoothd running, it scans the same controller; the controller then
/// answers our Set Scan Enable with Command Disallowed (0x0C) while its scan
/// is on, which surfaces as ``HCICommandError``.
public final class KernelLEScanner: Sendable {
    public let adapterIndex: UInt16
    private let commands: HCISocket
    private let events: HCISocket

    public init(adapterIndex: UInt16, loop: KernelEventLoop? = nil) throws {
        self.adapterIndex = adapterIndex
        commands = try HCISocket(adapterIndex: adapterIndex, events: [HCIEventPacket.commandComplete, HCIEventPacket.commandStatus], loop: loop)
        do {
            events = try HCISocket(adapterIndex: adapterIndex, events: [HCIEventPacket.leMeta], loop: loop)
        } catch {
            commands.close()
            throw error
        }
    }

    static let setScanParameters: UInt16 = 0x200B
    static let setScanEnable: UInt16 = 0x200C

    /// Sets the parameters and enables scanning.
    public func start(_ parameters: LEScanParameters = LEScanParameters(), filterDuplicates: Bool = true) async throws {
        // A scan left on by an earlier run makes Set Scan Parameters fail.
        _ = try? await commands.command(opcode: Self.setScanEnable, parameters: [0, 0])
        _ = try await commands.command(opcode: Self.setScanParameters, parameters: parameters.commandParameters)
        _ = try await commands.command(opcode: Self.setScanEnable, parameters: [1, filterDuplicates ? 1 : 0])
    }

    /// Disables scanning.
    public func stop() async throws {
        _ = try await commands.command(opcode: Self.setScanEnable, parameters: [0, 0])
    }

    /// The reports of the next advertising report event; malformed events
    /// are skipped.
    public func nextReports(timeout: Duration? = nil) async throws -> [LEAdvertisingReport] {
        while true {
            let event = try await events.nextEvent(timeout: timeout)
            guard event.code == HCIEventPacket.leMeta, event.parameters.first == LEAdvertisingReport.subevent else { continue }
            if let reports = try? LEAdvertisingReport.parse(leMetaParameters: event.parameters) { return reports }
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
