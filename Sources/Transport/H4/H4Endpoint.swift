/// Where an H4 controller is reached, written the way the `attune` tool takes it.
public enum H4Endpoint: Hashable, Sendable, CustomStringConvertible {
    /// `tcp:HOST:PORT`: a TCP client, e.g. to an emulated controller.
    case tcp(host: String, port: UInt16)
    /// `unix:PATH`: a UNIX stream socket.
    case unix(path: String)
    /// `serial:PATH`: a UART or pty, put in raw mode.
    case serial(path: String, baudRate: Int)
    /// `user:hci0`: the Linux HCI user channel (exclusive access, no kernel host).
    case userChannel(device: UInt16)

    /// Why an endpoint string is not understood.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var text: String
        public var reason: String
        /// The user channel of a kernel adapter named like `hci0`.
    public static func userChannel(adapter name: String) throws(ParseError) -> H4Endpoint {
        guard name.hasPrefix("hci"), name.count > 3, let index = UInt16(name.dropFirst(3)) else {
            throw ParseError(text: name, reason: "expected an adapter name such as hci0")
        }
        return .userChannel(device: index)
    }

    public var description: String { "cannot parse H4 endpoint '\(text)': \(reason)" }
    }

    /// Parses `tcp:HOST:PORT`, `unix:PATH`, `serial:PATH[@BAUD]` or `user:hciN`.
    public init(parsing text: String) throws(ParseError) {
        guard let colon = text.firstIndex(of: ":") else {
            throw ParseError(text: text, reason: "expected SCHEME:ARGUMENT")
        }
        let scheme = text[..<colon]
        let argument = String(text[text.index(after: colon)...])
        switch scheme {
        case "tcp":
            guard let portColon = argument.lastIndex(of: ":"),
                  let port = UInt16(argument[argument.index(after: portColon)...]), port != 0 else {
                throw ParseError(text: text, reason: "expected tcp:HOST:PORT with a port 1–65535")
            }
            var host = String(argument[..<portColon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw ParseError(text: text, reason: "empty host") }
            self = .tcp(host: host, port: port)
        case "unix":
            guard !argument.isEmpty else { throw ParseError(text: text, reason: "empty path") }
            self = .unix(path: argument)
        case "serial":
            let parts = argument.split(separator: "@", maxSplits: 1).map(String.init)
            guard let path = parts.first, !path.isEmpty else { throw ParseError(text: text, reason: "empty path") }
            var baud = 115_200
            if parts.count == 2 {
                guard let value = Int(parts[1]), value > 0 else { throw ParseError(text: text, reason: "bad baud rate") }
                baud = value
            }
            self = .serial(path: path, baudRate: baud)
        case "user":
            guard argument.hasPrefix("hci"), let index = UInt16(argument.dropFirst(3)) else {
                throw ParseError(text: text, reason: "expected user:hciN")
            }
            self = .userChannel(device: index)
        default:
            throw ParseError(text: text, reason: "unknown scheme '\(scheme)' (tcp, unix, serial, user)")
        }
    }

    /// The user channel of a kernel adapter named like `hci0`.
    public static func userChannel(adapter name: String) throws(ParseError) -> H4Endpoint {
        guard name.hasPrefix("hci"), name.count > 3, let index = UInt16(name.dropFirst(3)) else {
            throw ParseError(text: name, reason: "expected an adapter name such as hci0")
        }
        return .userChannel(device: index)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): "tcp:\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .unix(let path): "unix:\(path)"
        case .serial(let path, let baud): baud == 115_200 ? "serial:\(path)" : "serial:\(path)@\(baud)"
        case .userChannel(let device): "user:hci\(device)"
        }
    }
}
