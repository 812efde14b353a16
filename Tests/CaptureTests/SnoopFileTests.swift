import ATT
import Capture
import CaptureTestSupport
import Foundation
import HCI
import Testing
import WaitTestSupport

/// What transports write with `--snoop` reads back through our decoder, tshark and btmon.
@Suite struct SnoopFileTests {
    func writeSession(_ path: String, format: CaptureFormat) throws {
        let snoop = try SnoopFile(path: path, format: format)
        // LE Connection Complete: handle 0x0040, central, peer C0:FF:EE:00:00:01 (random).
        snoop.record(.event, .received, [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0xEE, 0xFF,
                                         0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00][...], at: 1_000_000)
        snoop.recordL2CAP(channel: .attribute, payload: [0x02, 0xF7, 0x00][...], handle: 0x40, direction: .sent, at: 1_000_100)
        snoop.recordL2CAP(channel: .attribute, payload: [0x03, 0x05, 0x02][...], handle: 0x40, direction: .received, at: 1_000_200)
        snoop.recordL2CAP(channel: .attribute, payload: [0x0A, 0x03, 0x00][...], handle: 0x40, direction: .sent, at: 1_000_300)
        snoop.recordL2CAP(channel: .attribute, payload: [0x0B, 0x41, 0x74, 0x74, 0x75, 0x6E, 0x65][...], handle: 0x40,
                          direction: .received, at: 1_000_400)
        #expect(snoop.failure == nil)
    }

    @Test(arguments: [CaptureFormat.btsnoop(.hciUART), .btsnoop(.linuxMonitor), .pcap(.bluetoothHCIH4WithPHDR), .pcapng(.bluetoothHCIH4WithPHDR)])
    func snoopReadsBack(_ format: CaptureFormat) async throws {
        // Off the cooperative pool: a long synchronous loop would hold one of its threads.
        try await offPool { [self] in
            let path = temporaryPath("snoop-\(format.description.replacingOccurrences(of: " ", with: "-"))")
            try writeSession(path, format: format)
            var extractor = try ATTPDUExtractor(path: path)
            var names: [String] = []
            var peers: Set<String> = []
            while let pdu = try extractor.next() {
                names.append((try pdu.pdu.get()).opcode.name)
                peers.insert(pdu.frame.connection?.peerAddress.description ?? "?")
            }
            #expect(names == ["Exchange MTU Request", "Exchange MTU Response", "Read Request", "Read Response"])
            #expect(peers == ["C0:FF:EE:00:00:01"])
            if TShark.path != nil {
                let theirs = try TShark.attPDUs(path)
                #expect(theirs.map(\.opcode) == [0x02, 0x03, 0x0A, 0x0B])
                #expect(theirs.map(\.raw) == ["02f700", "030502", "0a0300", "0b417474756e65"])
            }
        }
    }

    @Test func btmonOpensSnoopFiles() throws {
        let btmon = "/usr/bin/btmon"
        try #require(FileManager.default.isExecutableFile(atPath: btmon), "btmon is not installed (package bluez)")
        let path = temporaryPath("snoop-btmon.btsnoop")
        try writeSession(path, format: .btsnoop(.hciUART))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: btmon)
        process.arguments = ["-r", path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("LE Connection Complete"), "\(text)")
        #expect(text.contains("ATT: Exchange MTU Request"), "\(text)")
        #expect(text.contains("ATT: Read Response"), "\(text)")
    }
}
