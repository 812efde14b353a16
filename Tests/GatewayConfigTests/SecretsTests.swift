import SensorDecoding
import Testing
import Glibc
@testable import GatewayConfig

/// Password files are read through an injected reader, and no secret is ever printed.
@Suite struct SecretsTests {
    static let withFile = """
    mqtt: {url: "mqtt://b", client_id: gw, username: attune, password_file: /etc/attune/mqtt-password}
    adapters: [{transport: hci0}]
    devices: [{name: f, address: "00:00:00:00:00:01", decode: bthome, bindkey: 231d39c1d7cc1ab1aee224cd096db932}]
    """

    @Test func passwordFileIsReadThroughTheReader() throws {
        let c = try load(Self.withFile)
        #expect(c.mqtt.password == nil)
        var asked: [String] = []
        let resolved = try c.resolveSecrets { path, limit throws(FileReadError) in
            asked.append(path)
            #expect(limit > GatewayConfiguration.maxPasswordFileBytes)
            return Array("s3cret-Pa55\n".utf8)
        }
        #expect(asked == ["/etc/attune/mqtt-password"])
        #expect(resolved.mqtt.password?.value == "s3cret-Pa55")
        #expect(resolved.mqtt.passwordFile == "/etc/attune/mqtt-password")
        // Without a password file nothing is read.
        let plain = try load(minimalHead)
        #expect(try plain.resolveSecrets { _, _ throws(FileReadError) in throw FileReadError(reason: "asked") } == plain)
    }

    @Test func unreadablePasswordFileSaysWhy() throws {
        let c = try load(Self.withFile)
        #expect(throws: GatewayConfigError(path: ConfigPath.root.appending("mqtt").appending("password_file"), mark: nil,
                                           message: "cannot read /etc/attune/mqtt-password: Permission denied")) {
            try c.resolveSecrets { _, _ throws(FileReadError) in throw FileReadError(errno: EACCES) }
        }
        func failure(_ bytes: [UInt8]) -> String? {
            do {
                _ = try c.resolveSecrets { _, _ throws(FileReadError) in bytes }
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure(Array("\n".utf8)) == "mqtt.password_file: /etc/attune/mqtt-password is empty")
        #expect(failure([0x70, 0xFF]) == "mqtt.password_file: /etc/attune/mqtt-password is not UTF-8 text without NUL bytes")
        #expect(failure(Array(repeating: 0x61, count: 5000))
            == "mqtt.password_file: /etc/attune/mqtt-password is longer than 4096 bytes")
    }

    /// The real reader reports the system's errno text.
    @Test func systemReaderGivesErrnoText() throws {
        let c = try load(Self.withFile.replacingOccurrences(of: "/etc/attune/mqtt-password", with: "/nonexistent/attune-pw"))
        #expect(throws: GatewayConfigError(path: ConfigPath.root.appending("mqtt").appending("password_file"), mark: nil,
                                           message: "cannot read /nonexistent/attune-pw: No such file or directory")) {
            try c.resolveSecrets()
        }
        #expect(throws: GatewayConfigError(path: .root, mark: nil, message: "cannot read /nonexistent/gw.yaml: No such file or directory")) {
            try GatewayConfiguration.load(path: "/nonexistent/gw.yaml")
        }
    }

    @Test func secretsAreRedacted() throws {
        let c = try load(Self.withFile).resolveSecrets { _, _ throws(FileReadError) in Array("s3cret-Pa55".utf8) }
        let inline = try load("mqtt: {url: \"mqtt://b\", client_id: gw, username: u, password: hunter2}\nadapters: [{transport: hci0}]\n")
        #expect(inline.mqtt.password?.value == "hunter2")
        for config in [c, inline] {
            var dumped = ""
            dump(config, to: &dumped)
            for text in [String(describing: config), String(reflecting: config), dumped, config.plan,
                         "\(config.mqtt)", "\(config.mqtt.password as Any)"] {
                #expect(!text.contains("s3cret") && !text.contains("hunter2") && !text.contains("231d39")
                        && !text.lowercased().contains("231d39c1"))
            }
            #expect(String(describing: config).contains("<redacted>"))
        }
        #expect("\(Secret("x"))" == "<redacted>")
        #expect("\(try #require(Key128(hex: "231d39c1d7cc1ab1aee224cd096db932")))" == "<redacted>")
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
