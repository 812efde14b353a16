import ATT

/// Finds services that include themselves, directly or through others. A client that
/// follows includes (as Core Bluetooth's `discoverIncludedServices` does, level after
/// level) would never finish such a database, so it is refused where it is built.
enum IncludeCycle {
    /// The first cycle in a graph of `edges[service] = services it includes`, as the
    /// services on it in include order (a self-include is one service), or nil.
    /// Iterative, so a chain of 65,535 services cannot exhaust the stack; linear in
    /// services plus includes.
    static func first(in edges: [[Int]]) -> [Int]? {
        // 0: not seen, 1: on the current path, 2: done (no cycle through it).
        var state = [UInt8](repeating: 0, count: edges.count)
        var path: [(node: Int, next: Int)] = []
        for root in edges.indices where state[root] == 0 {
            state[root] = 1
            path.append((root, 0))
            while let top = path.last {
                guard top.next < edges[top.node].count else {
                    state[top.node] = 2
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let target = edges[top.node][top.next]
                guard edges.indices.contains(target) else { continue }
                switch state[target] {
                case 0:
                    state[target] = 1
                    path.append((target, 0))
                case 1:
                    let start = path.lastIndex { $0.node == target }!
                    return path[start...].map(\.node)
                default:
                    continue
                }
            }
        }
        return nil
    }

    /// The services of a handle-ordered table whose Include declarations (Vol 3 Part G
    /// §3.2: the included service's declaration handle first) close a cycle, or nil.
    /// Includes that point at no service declaration are left to the client.
    static func first(in attributes: [Attribute]) -> [ServiceRecord]? {
        var services: [ServiceRecord] = []
        var indexByHandle: [UInt16: Int] = [:]
        for a in attributes where a.isServiceDeclaration {
            indexByHandle[a.handle.rawValue] = services.count
            services.append(ServiceRecord(uuid: BluetoothUUID(littleEndian: a.value[...]) ?? BluetoothUUID(0),
                                          isPrimary: a.type == GATTAttributeType.primaryService,
                                          range: AttributeHandleRange(start: a.handle, end: a.groupEnd ?? a.handle)))
        }
        var edges = [[Int]](repeating: [], count: services.count)
        var owner: Int?
        var any = false
        for a in attributes {
            if a.isServiceDeclaration {
                owner = indexByHandle[a.handle.rawValue]
                continue
            }
            guard a.type == GATTAttributeType.include, a.value.count >= 2, let o = owner,
                  a.handle <= services[o].range.end else { continue }
            let start = UInt16(a.value[a.value.startIndex]) | UInt16(a.value[a.value.startIndex + 1]) << 8
            guard let target = indexByHandle[start] else { continue }
            edges[o].append(target)
            any = true
        }
        guard any, let cycle = first(in: edges) else { return nil }
        return cycle.map { services[$0] }
    }

    /// A cycle as an error shows it: each service by UUID and handles, back to the first,
    /// at most `shown` of them so a hostile database cannot make a huge message.
    static func describe(_ names: [String], shown: Int = 8) -> String {
        guard let first = names.first else { return "" }
        let listed = names.prefix(shown) + (names.count > shown ? ["… \(names.count - shown) more"] : [])
        return (listed + [first]).joined(separator: " → ")
    }
}
