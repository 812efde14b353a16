import Testing
@testable import Transport

@Suite struct LEAdvertisingReportTests {
    // LE Meta, subevent 0x02, one ADV_IND report from public 00:AA:01:01:00:01
    // with Flags 0x06, RSSI -60.
    static let oneReport: [UInt8] = [0x02, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x01, 0xAA, 0x00, 0x03, 0x02, 0x01, 0x06, 0xC4]

    @Test func parsesAReport() throws {
        let reports = try LEAdvertisingReport.parse(leMetaParameters: Self.oneReport)
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.address == BluetoothAddress("00:AA:01:01:00:01"))
        #expect(report.addressType == .public)
        #expect(report.isConnectable)
        #expect(report.data == [0x02, 0x01, 0x06])
        #expect(report.rssi == -60)
    }

    @Test func parsesSeveralReports() throws {
        var event = Self.oneReport
        event[1] = 2
        event += Array(Self.oneReport[2...])
        event[15] = 0x04  // second one is a scan response
        let reports = try LEAdvertisingReport.parse(leMetaParameters: event)
        #expect(reports.count == 2)
        #expect(reports[1].isScanResponse)
    }

    @Test func reportsWhereATruncatedEventEnds() {
        for length in 0..<Self.oneReport.count {
            #expect(throws: LEAdvertisingReport.ParseError.self) {
                try LEAdvertisingReport.parse(leMetaParameters: Array(Self.oneReport.prefix(length)))
            }
        }
    }

    @Test func rejectsOversizedDataLength() {
        var event = Self.oneReport
        event[10] = 40
        event += [UInt8](repeating: 0, count: 40)
        #expect(throws: LEAdvertisingReport.ParseError.self) { try LEAdvertisingReport.parse(leMetaParameters: event) }
    }

    @Test func survivesRandomInput() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let count = Int.random(in: 0..<64, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = 0x02 }
            _ = try? LEAdvertisingReport.parse(leMetaParameters: bytes)
        }
    }

    @Test func readsEventPackets() {
        #expect(HCIEventPacket(packet: [0x04, 0x0E, 0x01, 0x00]) == HCIEventPacket(code: 0x0E, parameters: [0x00]))
        #expect(HCIEventPacket(packet: [0x04, 0x0E, 0x02, 0x00]) == nil)
        #expect(HCIEventPacket(packet: [0x02, 0x0E, 0x00]) == nil)
        #expect(HCIEventPacket(packet: [0x04]) == nil)
    }

    @Test func padsAdvertisingDataToTheCommandLayout() throws {
        let padded = try KernelLEAdvertiser.padded([0x02, 0x01, 0x06])
        #expect(padded.count == 32)
        #expect(padded.prefix(4) == [0x03, 0x02, 0x01, 0x06])
        #expect(throws: KernelTransportError.self) { try KernelLEAdvertiser.padded([UInt8](repeating: 0, count: 32)) }
        #expect(LEAdvertisingParameters().commandParameters.count == 15)
        #expect(LEScanParameters().commandParameters.count == 7)
    }
}
