import HCI
import Testing
@testable import Transport

/// The command layouts of the kernel scanner and advertiser; the reports
/// they read are decoded (and tested) by the HCI module.
@Suite struct KernelLECommandTests {
    @Test func padsAdvertisingDataToTheCommandLayout() throws {
        let padded = try KernelLEAdvertiser.padded([0x02, 0x01, 0x06])
        #expect(padded.count == 32)
        #expect(padded.prefix(4) == [0x03, 0x02, 0x01, 0x06])
        #expect(throws: KernelTransportError.self) { try KernelLEAdvertiser.padded([UInt8](repeating: 0, count: 32)) }
        #expect(LEAdvertisingParameters().commandParameters.count == 15)
        #expect(LEScanParameters().commandParameters.count == 7)
    }

    @Test func buildsTheLegacyAdvertisingParameters() {
        let parameters = LEAdvertisingParameters(minimumInterval: 0x0020, maximumInterval: 0x0030, ownAddressType: .random)
        #expect(parameters.commandParameters == [0x20, 0x00, 0x30, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
        #expect(LEScanParameters(active: false, interval: 0x0060, window: 0x0030).commandParameters == [0, 0x60, 0, 0x30, 0, 0, 0])
        #expect(KernelLEScanner.setScanEnable.rawValue == 0x200C)
        #expect(KernelLEAdvertiser.setAdvertisingParameters.rawValue == 0x2006)
    }
}
