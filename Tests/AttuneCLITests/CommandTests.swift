import BluetoothCore
import Foundation
import Glibc
import Testing

/// Every radio command end to end over `--transport memory`, against the demo peripheral.
@Suite("attune commands over the memory transport")
struct CommandTests {
    static let demo = "C0:00:00:00:00:01"
    static let memory = ["--transport", "memory"]

    @Test func discoverPrintsTheTree() async throws {
        let run = try await AttuneProcess.run(["discover", Self.demo, "--json"] + Self.memory)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let document = try #require(run.stdout.jsonObject)
        #expect(document["mtu"] as? Int == 512)
        let services = try #require(document["services"] as? [[String: Any]])
        #expect(services.compactMap { $0["uuid"] as? String }
                == ["1800", "1801", "180F", "180D", "180A", "A77E0001-5A1D-4E6B-9C3F-7B2E0D6C4A10",
                    Self.including, Self.secondary])
        let heartRate = try #require(services.first { $0["uuid"] as? String == "180D" })
        let measurement = try #require((heartRate["characteristics"] as? [[String: Any]])?.first)
        #expect(measurement["value"] as? Int == 0x16)
        #expect(measurement["properties"] as? [String] == ["notify"])
        #expect((measurement["descriptors"] as? [[String: Any]])?.first?["uuid"] as? String == "2902")
    }

    static let including = "A77E0005-5A1D-4E6B-9C3F-7B2E0D6C4A10"
    static let secondary = "A77E0006-5A1D-4E6B-9C3F-7B2E0D6C4A10"

    /// The demo's last primary service includes a secondary service with a 128-bit UUID:
    /// both are in the tree, the include with its handles and the UUID the client read.
    @Test func discoverShowsIncludesAndSecondaryServices() async throws {
        let run = try await AttuneProcess.run(["discover", Self.demo, "--json"] + Self.memory)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let services = try #require(run.stdout.jsonObject?["services"] as? [[String: Any]])
        let including = try #require(services.first { $0["uuid"] as? String == Self.including })
        #expect(including["primary"] as? Bool == true)
        let includes = try #require(including["includes"] as? [[String: Any]])
        #expect(includes.count == 1)
        #expect(includes.first?["declaration"] as? Int == 0x2B)
        #expect(includes.first?["uuid"] as? String == Self.secondary)
        #expect(includes.first?["start"] as? Int == 0x2C)
        #expect(includes.first?["end"] as? Int == 0x2F)
        let secondary = try #require(services.first { $0["uuid"] as? String == Self.secondary })
        #expect(secondary["primary"] as? Bool == false)
        #expect(secondary["start"] as? Int == 0x2C)
        #expect((secondary["includes"] as? [Any])?.isEmpty == true)
        let value = try #require((secondary["characteristics"] as? [[String: Any]])?.first)
        #expect(value["value"] as? Int == 0x2E)
        #expect((value["descriptors"] as? [[String: Any]])?.first?["handle"] as? Int == 0x2F)
        #expect(services.compactMap { $0["primary"] as? Bool }.filter { !$0 }.count == 1)

        let text = try await AttuneProcess.run(["discover", Self.demo] + Self.memory)
        #expect(text.stdoutLines.contains(
            "  includes 0x002b  \(Self.secondary) Attune Demo Secondary Service  service 0x002c..0x002f"))
        #expect(text.stdoutLines.contains(
            "service 0x002c..0x002f  \(Self.secondary) Attune Demo Secondary Service (secondary)"))
    }

    /// The secondary characteristic's value as a fresh demo serves it: 5e at first, then,
    /// from 250 ms after the demo started (a loaded machine gets there before the read),
    /// the low byte of its counter, which counts up from 0 every 500 ms.
    static func isSecondaryValue(_ printed: String) -> Bool {
        guard printed.count == 3, printed.hasSuffix("\n"), let byte = UInt8(printed.prefix(2), radix: 16) else { return false }
        return byte <= 0x5e
    }

    /// Read, write and subscribe reach a characteristic of the secondary service by handle.
    @Test func secondaryServiceValueByHandle() async throws {
        let read = try await AttuneProcess.run(["read", Self.demo, "0x002e"] + Self.memory)
        #expect(read.status == 0, "stderr: \(read.stderr)")
        #expect(Self.isSecondaryValue(read.stdout), "stdout: \(read.stdout)")
        let write = try await AttuneProcess.run(["write", Self.demo, "0x002e", "77", "--json"] + Self.memory)
        #expect(write.status == 0, "stderr: \(write.stderr)")
        #expect(write.stdout.jsonObject?["length"] as? Int == 1)
        let byUUID = try await AttuneProcess.run(["read", Self.demo, "a77e0007-5a1d-4e6b-9c3f-7b2e0d6c4a10"] + Self.memory)
        #expect(Self.isSecondaryValue(byUUID.stdout), "and by UUID: \(byUUID.stdout); stderr: \(byUUID.stderr)")
        let cccd = try await AttuneProcess.run(["read", Self.demo, "0x002f"] + Self.memory)
        #expect(cccd.stdout == "0000\n", "the descriptor of the secondary value, by handle")
        let subscribe = try await AttuneProcess.run(["subscribe", Self.demo, "0x002e", "--count", "2", "--json"] + Self.memory)
        #expect(subscribe.status == 0, "stderr: \(subscribe.stderr)")
        let values = subscribe.stdoutLines.compactMap { $0.jsonObject?["value"] as? String }
        #expect(values.count == 2)
        #expect(values.allSatisfy { $0.count == 2 }, "one byte each: \(values)")
    }

    @Test func readByUUIDAndByHandle() async throws {
        let byUUID = try await AttuneProcess.run(["read", Self.demo, "2a29"] + Self.memory)
        #expect(byUUID.status == 0, "stderr: \(byUUID.stderr)")
        #expect(byUUID.stdout == "417474756e65\n")   // "Attune"
        let long = try await AttuneProcess.run(["read", Self.demo, "0x0023", "--long", "--json"] + Self.memory)
        #expect(long.status == 0, "stderr: \(long.stderr)")
        let object = try #require(long.stdout.jsonObject)
        #expect(object["length"] as? Int == 300)
        let expected = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256 &+ 1) }
        #expect(object["value"] as? String == hexString(expected))
        let descriptor = try await AttuneProcess.run(["read", Self.demo, "0x0017"] + Self.memory)
        #expect(descriptor.stdout == "0000\n", "the CCCD of the heart-rate measurement, off")
    }

    @Test func writeWithEachProcedure() async throws {
        let long = String(repeating: "a5", count: 400)
        for flags in [[], ["--long"], ["--reliable"]] {
            let run = try await AttuneProcess.run(["write", Self.demo, "0x0025", long, "--json"] + flags + Self.memory)
            #expect(run.status == 0, "\(flags): \(run.stderr)")
            #expect(run.stdout.jsonObject?["length"] as? Int == 400)
        }
        let notWritable = try await AttuneProcess.run(["write", Self.demo, "2a29", "00"] + Self.memory)
        #expect(notWritable.status == 1)
        #expect(notWritable.stderr.contains("does not take writes with response"))
        let both = try await AttuneProcess.run(["write", Self.demo, "0x0025", "00", "--long", "--reliable"] + Self.memory)
        #expect(both.status == 2)
    }

    @Test func subscribeCountsValues() async throws {
        let notify = try await AttuneProcess.run(["subscribe", Self.demo, "2a37", "--count", "2", "--json"] + Self.memory)
        #expect(notify.status == 0, "stderr: \(notify.stderr)")
        let values = notify.stdoutLines.compactMap { $0.jsonObject?["value"] as? String }
        #expect(values.count == 2)
        #expect(values.allSatisfy { $0.count == 4 && $0.hasPrefix("00") }, "flags 0, then an 8-bit rate")
        let indicate = try await AttuneProcess.run(["subscribe", Self.demo, "0x0028", "--indicate", "--count", "2"] + Self.memory)
        #expect(indicate.status == 0, "stderr: \(indicate.stderr)")
        #expect(indicate.stdoutLines.count == 2)
        let wrong = try await AttuneProcess.run(["subscribe", Self.demo, "2a37", "--indicate", "--count", "1"] + Self.memory)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("does not indicate"))
    }

    @Test func scanFindsTheDemo() async throws {
        let run = try await AttuneProcess.run(["scan", "--timeout", "1", "--services", "180d", "--json"] + Self.memory)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let ad = try #require(run.stdoutLines.first?.jsonObject)
        #expect(ad["address"] as? String == Self.demo)
        #expect(ad["name"] as? String == "Attune Demo")
        let filtered = try await AttuneProcess.run(["scan", "--timeout", "1", "--services", "1234"] + Self.memory)
        #expect(filtered.status == 0 && filtered.stdout.isEmpty)
    }

    @Test func serveAnswersAndPrintsRequests() async throws {
        let run = try await AttuneProcess.run(["serve", "Fixtures/databases/heart-rate.json", "--name", "Pulse", "--json"] + Self.memory)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let events = run.stdoutLines.compactMap { $0.jsonObject }
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.first == "connected" && names.last == "disconnected")
        let read = try #require(events.first { $0["event"] as? String == "read" && $0["value"] as? String == "01" })
        #expect(read["offset"] as? Int == 0)
        #expect(names.contains("subscription"))
        // The control point needs encryption, which the in-memory link does not have.
        #expect(run.stderr.contains("Insufficient Encryption"))
        #expect(run.stderr.contains("the attribute requires an encrypted link"), "names what the attribute needs")
        let flat = try await AttuneProcess.run(["serve", "Fixtures/conformance/gatt-dbs.json"] + Self.memory)
        #expect(flat.status == 1)
        #expect(flat.stderr.contains("\"services\" form"))
    }

    @Test func snoopRecordsACommandsSession() async throws {
        let file = AttuneProcess.temporaryFile(".btsnoop")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let read = try await AttuneProcess.run(["read", Self.demo, "2a19", "--snoop", file] + Self.memory)
        #expect(read.status == 0, "stderr: \(read.stderr)")
        let decode = try await AttuneProcess.run(["decode", file])
        #expect(decode.status == 0)
        let lines = decode.stdoutLines
        #expect(lines.first?.contains("connected to \(Self.demo) (random) as central") == true)
        #expect(lines.contains { $0.contains("sent     hci0  0x0001  cid 0x0004 ATT  Read Request handle 0x0012") })
        #expect(lines.last?.contains("disconnected, reason 0x16") == true)
        // Every transport takes --snoop now: on the kernel one (absent here) the command
        // fails for the kernel's reason, never for the option.
        let kernel = try await AttuneProcess.run(["read", Self.demo, "2a19", "--snoop", file])
        #expect(kernel.status == 1)
        #expect(!kernel.stderr.contains("--snoop"), "stderr: \(kernel.stderr)")
        // On H4 the capture is opened before the session, so a bad path fails first.
        let h4 = try await AttuneProcess.run(["read", Self.demo, "2a19", "--transport", "tcp:127.0.0.1:1",
                                              "--snoop", "/nonexistent-dir/x.btsnoop"])
        #expect(h4.status == 1)
        #expect(h4.stderr.contains("--snoop /nonexistent-dir/x.btsnoop"), "stderr: \(h4.stderr)")
    }

    @Test func unknownAddressesAndAttributesAreExplained() async throws {
        let badAddress = try await AttuneProcess.run(["read", "11:22", "0x0003"] + Self.memory)
        #expect(badAddress.status == 2)
        #expect(badAddress.stderr.contains("invalid address '11:22'"))
        let missing = try await AttuneProcess.run(["read", Self.demo, "0x0099"] + Self.memory)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("attune discover"))
    }
}

/// Commands against the kernel on a machine whose kernel has no Bluetooth.
@Suite("attune on a kernel without Bluetooth")
struct KernelAbsentTests {
    /// Whether this kernel lacks AF_BLUETOOTH, which is what these tests are about.
    static var kernelLacksBluetooth: Bool {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        if fd >= 0 { close(fd) }
        return fd < 0 && (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT)
    }

    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has AF_BLUETOOTH"))
    func stateAndScanExplainUnsupported() async throws {
        let explanation = "no Bluetooth adapter: the kernel has no AF_BLUETOOTH support"
        let state = try await AttuneProcess.run(["state"])
        #expect(state.status == 1)
        #expect(state.stdout.contains("unsupported"))
        #expect(state.stderr.contains(explanation))
        let json = try await AttuneProcess.run(["state", "--json"])
        #expect(json.stdout.jsonObject?["cause"] as? String == ManagerCauseText.noBluetooth)
        let scan = try await AttuneProcess.run(["scan", "--timeout", "1"])
        #expect(scan.status == 1)
        #expect(scan.stderr.contains(explanation))
        #expect(scan.stderr.contains("--transport"), "the fix is named")
        let read = try await AttuneProcess.run(["read", "00:11:22:33:44:55", "2a29", "--transport", "user:hci0"])
        #expect(read.status == 1)
        #expect(read.stderr.contains(explanation))
    }

    @Test func memoryStateIsPoweredOn() async throws {
        let run = try await AttuneProcess.run(["state", "--transport", "memory"])
        #expect(run.status == 0)
        #expect(run.stdout == "memory: poweredOn\n")
    }

    @Test func usageErrorsExitTwo() async throws {
        for arguments in [["nosuch"], ["read"], ["scan", "--timeout", "x"], ["state", "--transport", "bogus"],
                          ["write", "00:11:22:33:44:55", "zz", "00"], []] {
            let run = try await AttuneProcess.run(arguments)
            #expect(run.status == 2, "attune \(arguments.joined(separator: " ")): \(run.stderr)")
        }
        let help = try await AttuneProcess.run(["subscribe", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("usage: attune subscribe"))
    }
}

enum ManagerCauseText {
    static let noBluetooth = "no Bluetooth adapter: the kernel has no AF_BLUETOOTH support"
        + " (load the bluetooth module, or use an H4 transport such as --transport tcp:HOST:PORT)"
}
