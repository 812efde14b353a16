import Capture
import CaptureTestSupport
import FixtureTestSupport
import Foundation
import Testing

/// Files written by another implementation (Wireshark's editcap, little-endian, with
/// section and interface options) read to the same records as the btsnoop originals.
@Suite struct IndependentWriterTests {
    static let editcap = "/usr/bin/editcap"

    @Test(arguments: Fixtures.captures)
    func editcapConversionsReadAlike(_ name: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.editcap), "editcap is not installed (comes with tshark)")
        let (_, original) = try readAll(try Fixtures.bytes(name))
        for format in ["pcap", "nsecpcap", "pcapng"] {
            let out = temporaryPath("\(name.replacingOccurrences(of: "/", with: "_")).editcap.\(format)")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.editcap)
            process.arguments = ["-F", format, Fixtures.capturePath(name), out]
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            let (_, converted) = try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
            #expect(converted.map(RecordContent.init) == original.map(RecordContent.init), "\(name) via editcap -F \(format)")
        }
    }
}
