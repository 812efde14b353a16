import BluetoothCore
import Capture
import Foundation
import Testing

extension BumbleCLITests {
    /// Two `attune read`s of a value Bumble serves only encrypted, in two processes on one
    /// store: the first pairs (Secure Connections Just Works) and keeps the bond, the second
    /// encrypts with it and sends no SMP PDU; `attune bonds` lists it, without keys.
    @Test(.timeLimit(.minutes(20)))
    func secondReadEncryptsWithTheBond() async throws {
        let lab = try await BumbleLab.start(arguments: ["--protected", "--readvertise"])
        defer { lab.stop() }
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("attune-cli-bond-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let first = store + "-1.btsnoop", second = store + "-2.btsnoop"
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        let handle = String(format: "0x%04x", try #require(lab.handles["protected"]))
        let expected = hexString(Array("attune-encrypted".utf8))
        for capture in [first, second] {
            let run = try await AttuneProcess.run(["read", lab.address, handle, "--random", "--transport", lab.transport,
                                                   "--snoop", capture], timeout: 60, store: store)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdout == expected + "\n")
        }
        #expect(try Self.smpCodes(first).first == 0x01, "the first read paired")
        #expect(try Self.smpCodes(second).isEmpty, "the second read encrypted with the bond: no SMP at all")
        let bonds = try await AttuneProcess.run(["bonds"], store: store)
        #expect(bonds.stdoutLines.count == 1 && bonds.stdout.hasPrefix(lab.address), "\(bonds.stdout)")
        #expect(bonds.stdout.contains("key size 16, unauthenticated, Secure Connections"))
    }

    /// The acceptance case: `attune read --passkey N` reads a value Bumble serves only
    /// with an authenticated key (Passkey Entry, Bumble displaying N); the next `attune
    /// read`, a new process on the same store with `--no-pair`, encrypts with that bond,
    /// sends no SMP PDU, and reads it: the bond is authenticated on both sides.
    @Test(.timeLimit(.minutes(20)))
    func passkeyBondReadsTheAuthenticatedValueInTheNextProcess() async throws {
        let lab = try await BumbleLab.start(arguments: Self.passkeyLab + ["--readvertise"])
        defer { lab.stop() }
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("attune-cli-bond-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let first = store + "-1.btsnoop", second = store + "-2.btsnoop"
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        let handle = String(format: "0x%04x", try #require(lab.handles["protected"]))
        for (capture, pairing) in [(first, ["--passkey", Self.passkey]), (second, ["--no-pair"])] {
            let run = try await AttuneProcess.run(["read", lab.address, handle, "--random", "--transport", lab.transport,
                                                   "--snoop", capture] + pairing, timeout: 90, store: store)
            #expect(run.status == 0, "\(pairing): stderr: \(run.stderr)")
            #expect(run.stdout == Self.protectedValue + "\n", "\(pairing)")
        }
        #expect(try Self.smpCodes(first).first == 0x01, "the first read paired")
        #expect(try Self.smpCodes(second).isEmpty, "the second read encrypted with the bond: no SMP at all")
        let bonds = try await AttuneProcess.run(["bonds"], store: store)
        #expect(bonds.stdout.contains("key size 16, authenticated, Secure Connections"), "\(bonds.stdout)")
    }

    /// The SMP codes of a capture, in order: first fragments of ACL on CID 0x0006.
    static func smpCodes(_ path: String) throws -> [UInt8] {
        var reader = try CaptureReader(path: path)
        var codes: [UInt8] = []
        while let record = try reader.next() {
            guard record.packetType == .aclData else { continue }
            let bytes = Array(record.payload)
            guard bytes.count >= 9, (bytes[1] >> 4) & 0x3 != 0b01 else { continue }
            if UInt16(bytes[6]) | UInt16(bytes[7]) << 8 == 0x0006 { codes.append(bytes[8]) }
        }
        return codes
    }
}
