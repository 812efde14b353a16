import Attune
import Capture
import ControllerTestSupport
import Foundation
import HCI
import InteropTestSupport
import Testing

/// Bonds across processes against Bumble: manager A pairs (Secure Connections Just Works)
/// to read a value Bumble serves only encrypted, and keeps the bond in a FileStore; manager
/// B, new, on the same store directory (so the same host identity), connects and the link is
/// encrypted with the stored LTK before GATT starts: no Pairing Request on the wire, and
/// the protected value reads at once.
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct BondReconnectInteropTests {
    @Test("a new central on the same store encrypts with the bond and reads the protected value without pairing")
    func reconnectEncryptsWithBond() async throws {
        let lab = try await InteropLab.start(role: "peripheral", arguments: ["--protected", "--readvertise"])
        defer { lab.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attune-bonds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let captureA = directory + "-a.btsnoop", captureB = directory + "-b.btsnoop"
        defer {
            try? FileManager.default.removeItem(atPath: captureA)
            try? FileManager.default.removeItem(atPath: captureB)
        }
        let transport = BluetoothTransport.h4(.tcp(host: "127.0.0.1", port: UInt16(lab.port(0))))
        let name = try #require(lab.ready.device(0, "name"))
        let clock = ContinuousClock()

        // Manager A: pairs from scratch, bonds.
        let storeA = try FileStore(directory: directory)
        let centralA = CentralManager(transport: transport, store: storeA, snoop: try SnoopFile(path: captureA))
        for await state in centralA.stateUpdates where state == .poweredOn || state == .unsupported { break }
        try #require(centralA.state == .poweredOn, "\(centralA.status)")
        let peripheralA = try #require(try await PublicAPIInteropTests.find([name], with: centralA).first)
        let eventsA = peripheralA.lifecycleEvents
        let startA = clock.now
        try await centralA.connect(peripheralA, timeout: hangGuard)
        let protectedA = try await Self.protectedCharacteristic(of: peripheralA)
        #expect(try await peripheralA.readValue(for: protectedA) == Array("attune-encrypted".utf8))
        let fromScratch = clock.now - startA
        var bond: Bond?
        for await event in eventsA {
            if case .bonded(let saved) = event {
                bond = saved
                break
            }
        }
        let saved = try #require(bond)
        #expect(saved.isSecureConnections && saved.keySize == 16 && !saved.isAuthenticated)
        #expect(!"\(saved)".contains(hexString(saved.longTermKey)), "a bond never prints its key")
        #expect(centralA.bonds.map(\.identifier) == [peripheralA.identifier])
        _ = try await lab.waitFor("paired", timeout: hangGuard)
        let identityA = try #require(storeA.hostIdentity)
        // Bond-bearing files are the owner's only.
        #expect(try Self.mode(directory + "/" + peripheralA.identifier.uuidString + ".json") == 0o600)
        #expect(try Self.mode(directory + "/" + FileStore.identityFileName) == 0o600)
        await centralA.cancelConnection(peripheralA)
        _ = try await lab.waitFor("disconnected", timeout: hangGuard)
        let pairingsBefore = lab.events.filter { $0.name == "pairing_start" }.count
        let encryptionsBefore = lab.events.filter { $0.name == "encryption" }.count

        // Manager B: a new manager and a new FileStore on the same directory.
        let storeB = try FileStore(directory: directory)
        #expect(storeB.hostIdentity == identityA, "the host keeps its identity across managers")
        // B's capture keeps the keys (`--snoop-keys`), so it shows which key encrypted the link.
        let centralB = CentralManager(transport: transport, store: storeB, snoop: try SnoopFile(path: captureB, keepsKeys: true))
        for await state in centralB.stateUpdates where state == .poweredOn || state == .unsupported { break }
        try #require(centralB.state == .poweredOn, "\(centralB.status)")
        let peripheralB = try #require(centralB.retrievePeripherals(identifiers: [peripheralA.identifier]).first)
        let eventsB = peripheralB.lifecycleEvents
        let startB = clock.now
        try await centralB.connect(peripheralB, timeout: hangGuard)
        let reconnect = clock.now - startB
        let protectedB = try await Self.protectedCharacteristic(of: peripheralB)
        #expect(try await peripheralB.readValue(for: protectedB) == Array("attune-encrypted".utf8))
        let readyAndRead = clock.now - startB
        let encryption = try await lab.waitFor("encryption", timeout: hangGuard, skipping: encryptionsBefore)
        #expect(encryption.bool("encrypted") == true)
        #expect(lab.events.filter { $0.name == "pairing_start" }.count == pairingsBefore, "Bumble saw no second pairing")
        await centralB.cancelConnection(peripheralB)
        _ = try await lab.waitFor("disconnected", timeout: hangGuard, skipping: 1)
        var sawBondFailure = false
        for await event in eventsB {
            if case .bondFailed = event { sawBondFailure = true }
            if case .disconnected = event { break }
        }
        #expect(!sawBondFailure)

        // B's capture: no SMP PDU at all, one LE Enable Encryption with EDIV and Rand zero
        // (Secure Connections) and the stored LTK.
        #expect(try PairingInteropTests.smpCodes(captureB).isEmpty, "no Pairing Request on the reconnect")
        let encrypts = try PairingInteropTests.commands(captureB, opcode: LEEnableEncryption.opcode.rawValue)
        #expect(encrypts.count == 1)
        if let parameters = encrypts.first, parameters.count == 28 {
            #expect(parameters[2..<12].allSatisfy { $0 == 0 }, "Rand and EDIV are zero for Secure Connections")
            #expect(Array(parameters.suffix(16)) == saved.longTermKey, "encrypted with the stored LTK, kept by keepsKeys")
        }
        // A's capture (keys masked by default): the LTK is nowhere, in LE Enable Encryption
        // or in SMP key distribution.
        #expect(try !Self.captureContains(captureA, saved.longTermKey), "no LTK in A's capture")
        #expect(try PairingInteropTests.commands(captureA, opcode: LEEnableEncryption.opcode.rawValue)
            .allSatisfy { $0.suffix(16).allSatisfy { $0 == 0 } })
        print("bond reconnect against Bumble: pairing from scratch (connect, then the read that pairs) took \(fromScratch); "
              + "reconnect to encrypted-and-ready with the bond \(reconnect), with the protected read \(readyAndRead)")
    }

    @Test("a bonded Bumble central comes back to a new PeripheralManager on the same store: its LTK request is answered from the bond")
    func peripheralAnswersFromTheBond() async throws {
        let lab = try await InteropLab.start(role: "central")
        defer { lab.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attune-bonds-p-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let captureB = directory + "-b.btsnoop"
        defer { try? FileManager.default.removeItem(atPath: captureB) }
        let transport = BluetoothTransport.h4(.tcp(host: "127.0.0.1", port: UInt16(lab.port(0))))

        let storeA = try FileStore(directory: directory)
        let managerA = try PeripheralManager(transport: transport, name: "AttuneBond", store: storeA)
        try await Self.serve(managerA)
        let paired = try await lab.run("connect-pair AttuneBond", timeout: hangGuard)
        #expect(paired.bool("paired") == true, "\(paired)")
        // Our half of key distribution lands right after Bumble's pair() returns.
        // The store announces nothing: look until the bond is there.
        try await eventually("the central's bond is stored") { storeA.records().contains { $0.bond != nil } }
        let record = try #require(storeA.records().first { $0.bond != nil }, "the central's bond is stored")
        #expect(record.bond?.isSecureConnections == true)
        lab.send("disconnect 0x13")
        _ = try await lab.waitFor("disconnected", timeout: hangGuard)
        await managerA.stopAdvertising()
        let identity = try #require(storeA.hostIdentity)

        let storeB = try FileStore(directory: directory)
        let managerB = try PeripheralManager(transport: transport, name: "AttuneBond", snoop: try SnoopFile(path: captureB),
                                             store: storeB)
        try await Self.serve(managerB)
        let connected = try await lab.run("connect \(identity.address) random", timeout: hangGuard)
        #expect(connected.int("handle") != nil, "\(connected)")
        let encrypted = try await lab.run("encrypt", timeout: hangGuard)
        #expect(encrypted.bool("encrypted") == true, "\(encrypted)")
        lab.send("disconnect 0x13")
        _ = try await lab.waitFor("disconnected", timeout: hangGuard, skipping: 1)
        let replies = try PairingInteropTests.commands(captureB, opcode: LELongTermKeyRequestReply.opcode.rawValue)
        #expect(replies.count == 1, "the LTK request was answered with the stored key")
        #expect(try PairingInteropTests.commands(captureB, opcode: LELongTermKeyRequestNegativeReply.opcode.rawValue).isEmpty)
        #expect(try PairingInteropTests.smpCodes(captureB).isEmpty, "no pairing on the reconnect")
    }

    static func serve(_ manager: PeripheralManager) async throws {
        try #require(try await settledState(manager.stateUpdates) == .poweredOn, "\(manager.status)")
        _ = try await manager.add(PublicAPIPeripheralInteropTests.database)
        try await manager.startAdvertising(localName: "AttuneBond")
    }

    static func protectedCharacteristic(of peripheral: Peripheral) async throws -> Characteristic {
        let services = try await peripheral.discoverServices([PairingInteropTests.protectedService])
        let service = try #require(services.first)
        let characteristics = try await peripheral.discoverCharacteristics([PairingInteropTests.protectedCharacteristic],
                                                                            for: service)
        return try #require(characteristics.first)
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }


    static func captureContains(_ path: String, _ key: [UInt8]) throws -> Bool {
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        guard data.count >= key.count else { return false }
        for start in 0...(data.count - key.count) where data[start] == key[0] && Array(data[start..<start + key.count]) == key {
            return true
        }
        return false
    }
}
