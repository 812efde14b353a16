import EventLoop
import HCI

/// Legacy LE advertising through a raw HCI socket on one adapter: the
/// peripheral role's half of being found and connected.
///
/// The controller has one legacy advertising set; when bluetoothd (or
/// `btmgmt advertising on`) also advertises on it, expect one to override
/// the other or a refusal (untested). See ``BluetoothDaemonPresence``.
public final class KernelLEAdvertiser: Sendable {
    public let adapterIndex: UInt16
    private let commands: HCISocket

    static let setAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    static let setAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    static let setScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    static let setAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)

    public init(adapterIndex: UInt16, loop: KernelEventLoop? = nil) throws {
        self.adapterIndex = adapterIndex
        commands = try HCISocket(adapterIndex: adapterIndex, events: [HCIEvent.Code.commandComplete, HCIEvent.Code.commandStatus], loop: loop)
    }

    public func setParameters(_ parameters: LEAdvertisingParameters) async throws {
        _ = try await commands.command(Self.setAdvertisingParameters, parameters: parameters.commandParameters)
    }

    /// Sets the advertising data (at most 31 bytes of AD structures).
    public func setAdvertisingData(_ data: [UInt8]) async throws {
        _ = try await commands.command(Self.setAdvertisingData, parameters: try Self.padded(data))
    }

    /// Sets the scan response data (at most 31 bytes).
    public func setScanResponseData(_ data: [UInt8]) async throws {
        _ = try await commands.command(Self.setScanResponseData, parameters: try Self.padded(data))
    }

    public func setEnabled(_ enabled: Bool) async throws {
        _ = try await commands.command(Self.setAdvertisingEnable, parameters: [enabled ? 1 : 0])
    }

    /// Parameters, data, scan response and enable, in the order the spec requires.
    public func start(_ parameters: LEAdvertisingParameters = LEAdvertisingParameters(),
                      data: [UInt8], scanResponse: [UInt8] = []) async throws {
        _ = try? await commands.command(Self.setAdvertisingEnable, parameters: [0])
        try await setParameters(parameters)
        try await setAdvertisingData(data)
        try await setScanResponseData(scanResponse)
        try await setEnabled(true)
    }

    /// The command layout: a length byte and 31 data bytes, zero-padded.
    static func padded(_ data: [UInt8]) throws -> [UInt8] {
        guard data.count <= 31 else {
            throw KernelTransportError(kind: .messageTooLong, operation: "advertising data of \(data.count) bytes (max 31)")
        }
        return [UInt8(data.count)] + data + [UInt8](repeating: 0, count: 31 - data.count)
    }

    public func close() { commands.close() }
}
