import ATT
import Capture
import CaptureTestSupport
import FixtureTestSupport
import Foundation
import HCI
import Testing
import WaitTestSupport

/// Advertising reports in the fixtures decode to what tshark shows: address, AD types in
/// order, local name and 16-bit service UUIDs.
@Suite struct AdvertisingReportTests {
    struct Seen: Equatable {
        var address: String
        var types: [UInt8]
        var name: String
        var uuids16: [UInt16]
    }

    func ours(_ name: String) throws -> [Int: [Seen]] {
        var reader = try CaptureReader(path: Fixtures.capturePath(name))
        var out: [Int: [Seen]] = [:]
        while let record = try reader.next() {
            guard record.packetType == .event else { continue }
            let event = try HCIEvent(decoding: record.payload)
            var reports: [(BluetoothAddress, ArraySlice<UInt8>)] = []
            switch event {
            case let .leAdvertisingReport(list): reports = list.map { ($0.address, $0.data) }
            case let .leExtendedAdvertisingReport(list): reports = list.map { ($0.address, $0.data) }
            default: continue
            }
            out[record.index + 1] = reports.map { address, data in
                let ad = AdvertisingData(decoding: data)
                #expect(ad.framingError == nil)
                return Seen(address: address.description.lowercased(), types: ad.structures.map(\.type.rawValue),
                            name: ad.localName ?? "", uuids16: ad.serviceUUIDs.compactMap(\.uint16))
            }
        }
        return out
    }

    func theirs(_ name: String) throws -> [Int: Seen] {
        let data = try TShark.run(["-r", Fixtures.capturePath(name), "-Y",
                                   "bthci_evt.le_meta_subevent == 0x02 || bthci_evt.le_meta_subevent == 0x0d",
                                   "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,", "-e", "frame.number",
                                   "-e", "bthci_evt.bd_addr", "-e", "btcommon.eir_ad.entry.type",
                                   "-e", "btcommon.eir_ad.entry.device_name", "-e", "btcommon.eir_ad.entry.uuid_16"])
        var out: [Int: Seen] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count >= 5, let frame = Int(c[0]) else { continue }
            out[frame] = Seen(address: c[1], types: c[2].split(separator: ",").compactMap { UInt8($0.dropFirst(2), radix: 16) },
                              name: c[3], uuids16: c[4].split(separator: ",").compactMap { UInt16($0.dropFirst(2), radix: 16) })
        }
        return out
    }

    @Test(arguments: Fixtures.captures)
    func advertisingDataMatchesTShark(_ name: String) async throws {
        // Off the cooperative pool: tshark runs and long loops would hold one of its threads.
        try await offPool { [self] in
            try #require(TShark.path != nil, "tshark is not installed (.ci/run installs it)")
            let mine = try ours(name)
            let expected = try theirs(name)
            #expect(Set(mine.keys) == Set(expected.keys), "\(name): frames with advertising reports")
            for (frame, seen) in expected {
                #expect(mine[frame]?.count == 1, "\(name) frame \(frame): one report per event")
                #expect(mine[frame]?.first == seen, "\(name) frame \(frame)")
            }
        }
    }

    @Test func fixturesHoldRealAdvertisingData() throws {
        let reports = try ours("h4_rawcentral_external.btsnoop")
        let named = reports.values.flatMap { $0 }.filter { $0.name == "BumbleLabPeer" }
        #expect(!named.isEmpty)
        #expect(named.first?.uuids16 == [0x180F, 0x180D])
        #expect(named.first?.address == "f0:f1:f2:f3:f4:f5")
    }
}
