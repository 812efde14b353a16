/// Where a value sits in the config, written as people point at it: `devices[2].gatt[0].characteristic`.
public struct ConfigPath: Hashable, Sendable, CustomStringConvertible {
    /// One step down.
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    /// The document's top.
    public static let root = ConfigPath(components: [])

    public init(components: [Component]) {
        self.components = components
    }

    public func appending(_ key: String) -> ConfigPath {
        ConfigPath(components: components + [.key(key)])
    }

    public func appending(index: Int) -> ConfigPath {
        ConfigPath(components: components + [.index(index)])
    }

    /// Keys made of letters, digits, `_` and `-` print bare; others print quoted as
    /// `["odd key"]`, cut at 64 characters so that a hostile key cannot make a huge message.
    public var description: String {
        var out = ""
        for component in components {
            switch component {
            case .index(let i):
                out += "[\(i)]"
            case .key(let key):
                let bare = !key.isEmpty && key.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
                }
                if bare {
                    out += out.isEmpty ? key : "." + key
                } else {
                    out += "[" + quoted(key) + "]"
                }
            }
        }
        return out
    }
}

/// `"text"` with quotes, backslashes and control characters escaped, at most 64 characters.
func quoted(_ text: String, limit: Int = 64) -> String {
    var out = "\""
    for (i, scalar) in text.unicodeScalars.enumerated() {
        if i == limit {
            out += "..."
            break
        }
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}
