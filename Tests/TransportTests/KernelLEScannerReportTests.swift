import HCI
import Testing
@testable import Transport

/// How the kernel scanner turns report events into whole reports: legacy ones
/// mapped to the extended shape, extended chains joined.
@Suite struct KernelLEScannerReportTests {
    static let address: [UInt8] = [0x01, 0x00, 0x01, 0x01, 0xAA, 0x00]

    /// One LE Extended Advertising Report event body with a single report.
    static func extended(eventType: UInt16, sid: UInt8 = 1, data: [UInt8]) throws -> HCIEvent {
        let body: [UInt8] = [1, UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x00] + address
            + [0x01, 0x00, sid, 0x7F, 0xC4, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [UInt8(data.count)] + data
        return .leExtendedAdvertisingReport(try LEExtendedAdvertisingReport.decodeAll(body[...]))
    }

    @Test func legacyReportsTakeTheExtendedShape() throws {
        let body: [UInt8] = [1, 0x00, 0x00] + Self.address + [3, 0x02, 0x01, 0x06, 0xC4]
        var assembler = ExtendedReportAssembler()
        let reports = KernelLEScanner.advertisingReports(in: .leAdvertisingReport(try LEAdvertisingReport.decodeAll(body[...])),
                                                         assembler: &assembler)
        #expect(reports.count == 1)
        #expect(reports.first?.eventType == 0x0013)  // ADV_IND: legacy, scannable, connectable
        #expect(reports.first?.isConnectable == true)
        #expect(reports.first?.data == [0x02, 0x01, 0x06])
        #expect(reports.first?.rssi == -60)
        #expect(reports.first?.address.description == "00:AA:01:01:00:01")
    }

    @Test func extendedChainsAreJoined() throws {
        var assembler = ExtendedReportAssembler()
        // Connectable, data status 1 (more to come), then complete.
        let first = KernelLEScanner.advertisingReports(in: try Self.extended(eventType: 0x0021, data: [0x05, 0x09, 0x61]),
                                                       assembler: &assembler)
        #expect(first.isEmpty)
        let second = KernelLEScanner.advertisingReports(in: try Self.extended(eventType: 0x0001, data: [0x62, 0x63, 0x64]),
                                                        assembler: &assembler)
        #expect(second.count == 1)
        #expect(second.first?.data == [0x05, 0x09, 0x61, 0x62, 0x63, 0x64])
        #expect(second.first?.dataStatus == 0)
        #expect(second.first?.isConnectable == true)
    }

    @Test func otherEventsCarryNoReports() {
        var assembler = ExtendedReportAssembler()
        #expect(KernelLEScanner.advertisingReports(in: .unknown(code: 0x10, parameters: [0][...]), assembler: &assembler).isEmpty)
    }
}
