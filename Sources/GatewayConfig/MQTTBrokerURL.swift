/// Where the broker is: `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (TLS).
///
/// Credentials in the URL are refused, so that the URL can be printed and logged; they go in
/// `username` and `password_file`.
public struct MQTTBrokerURL: Hashable, Sendable, CustomStringConvertible {
    public enum Scheme: String, Hashable, Sendable {
        case mqtt, mqtts
    }

    public let scheme: Scheme
    /// A host name, an IPv4 address, or an IPv6 address (without brackets).
    public let host: String
    /// The given port, or 1883 for `mqtt`, 8883 for `mqtts` (the IANA ports).
    public let port: UInt16

    public init(scheme: Scheme, host: String, port: UInt16? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? (scheme == .mqtts ? 8883 : 1883)
    }

    /// True for `mqtts://`.
    public var usesTLS: Bool { scheme == .mqtts }

    /// `mqtt://host:port`, with an IPv6 host in brackets.
    public var description: String {
        let h = host.contains(":") ? "[" + host + "]" : host
        return "\(scheme.rawValue)://\(h):\(port)"
    }

    /// Parses the URL; the error says what is wrong in words.
    static func parse(_ text: String) -> Result<MQTTBrokerURL, URLProblem> {
        let scheme: Scheme
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            scheme = .mqtt
            rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            scheme = .mqtts
            rest = text.dropFirst(8)
        } else {
            return .failure(URLProblem("not an mqtt:// or mqtts:// URL"))
        }
        if rest.last == "/" { rest = rest.dropLast() }
        if rest.contains("@") {
            // Not echoed: the part before @ is likely a password.
            return .failure(URLProblem("has credentials in it; use username and password_file instead"))
        }
        if rest.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            return .failure(URLProblem("has a path, query or fragment; an MQTT URL is mqtt://HOST[:PORT]"))
        }
        var host: Substring
        var portText: Substring?
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { return .failure(URLProblem("has an unclosed [")) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return .failure(URLProblem("has text after ]")) }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure(URLProblem("has a bad IPv6 address"))
            }
        } else {
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return .failure(URLProblem("has more than one :; write IPv6 hosts as [ADDRESS]")) }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard !host.isEmpty, host.count <= 253,
                  host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
            else { return .failure(URLProblem("has no usable host")) }
        }
        var port: UInt16?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let p = UInt16(portText), p > 0
            else { return .failure(URLProblem("has a port that is not 1...65535")) }
            port = p
        }
        return .success(MQTTBrokerURL(scheme: scheme, host: String(host), port: port))
    }
}

/// Why a broker URL was refused.
struct URLProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
