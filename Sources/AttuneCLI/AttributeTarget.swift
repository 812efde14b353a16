import Attune

/// What `read`, `write` and `subscribe` act on: `0x002a` names a handle (a
/// characteristic value or a descriptor), anything else is a UUID (`2a37`,
/// `0000180d`, or the 36-character form) and names the first characteristic of that type.
enum AttributeTarget: CustomStringConvertible {
    case handle(AttributeHandle)
    case uuid(BluetoothUUID)

    static func parse(_ text: String) throws(CLIError) -> AttributeTarget {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            guard let v = UInt16(text.dropFirst(2), radix: 16), v != 0 else {
                throw .usage("invalid handle '\(text)': handles are 0x0001…0xffff")
            }
            return .handle(AttributeHandle(v))
        }
        guard let uuid = BluetoothUUID(text) else {
            throw .usage("'\(text)' is neither a handle (0xNNNN) nor a UUID (2a37, 0000180d or the 36-character form)")
        }
        return .uuid(uuid)
    }

    var description: String {
        switch self {
        case .handle(let h): "handle \(h)"
        case .uuid(let u): "UUID \(u)"
        }
    }

    /// The characteristic or descriptor this target names in a discovered tree.
    func resolve(in services: [Service]) throws(CLIError) -> Resolved {
        for service in services {
            for c in service.characteristics ?? [] {
                switch self {
                case .handle(let h) where c.valueHandle == h: return .characteristic(c)
                case .uuid(let u) where c.uuid == u: return .characteristic(c)
                case .handle(let h):
                    if let d = c.descriptors?.first(where: { $0.handle == h }) { return .descriptor(d, of: c) }
                default: continue
                }
            }
        }
        throw .failure("no characteristic value or descriptor with \(self) on the peripheral (list them with `attune discover`)")
    }

    enum Resolved {
        case characteristic(Characteristic)
        case descriptor(Descriptor, of: Characteristic)
    }
}
