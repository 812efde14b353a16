extension GatewayConfiguration {
    /// What would run, in words, one fact a line: the text `attune gateway CONFIG --check`
    /// prints. Stable: the same configuration always gives the same text, and no secret
    /// appears in it (a password shows as where it comes from).
    public var plan: String {
        var lines: [String] = []
        let m = mqtt
        lines.append("broker: \(m.broker) as \(m.clientID), keepalive \(DurationText.format(m.keepalive))")
        if m.broker.usesTLS {
            var tls = "  tls: CA " + (m.caFile ?? "the system's")
            if let cert = m.certFile, let key = m.keyFile { tls += ", client certificate \(cert) with key \(key)" }
            lines.append(tls)
        }
        if let user = m.username {
            let source = m.passwordFile.map { "password from \($0)" } ?? (m.password == nil ? "no password" : "password inline")
            lines.append("  login: \(user), \(source)")
        }
        lines.append("topics: \(m.base)/gateway/\(m.clientID)/status (online, offline as last will), "
            + "\(m.base)/gateway/\(m.clientID)/adapters, \(m.base)/dev/<name>/...")
        if let d = m.discovery {
            lines.append("discovery: Home Assistant, \(d.prefix)/device/<id>/config, resent on \(d.prefix)/status online")
        } else {
            lines.append("discovery: off")
        }
        let slots = adapters.reduce(0) { $0 + $1.maxConnections }
        lines.append("adapters: \(adapters.count), \(slots) connection slot\(slots == 1 ? "" : "s") in all")
        for (i, a) in adapters.enumerated() {
            lines.append("  \(i + 1). \(a.transport): \(a.maxConnections) slot\(a.maxConnections == 1 ? "" : "s")")
        }
        lines.append("scan: \(scan.mode.rawValue), interval \(number(scan.intervalMilliseconds)) ms, "
            + "window \(number(scan.windowMilliseconds)) ms")
        lines.append(discoverUnknown ? "unknown devices: published on \(m.base)/adv/<address>" : "unknown devices: ignored")
        var counts: [DeviceConfiguration.ConnectMode: Int] = [:]
        for d in devices { counts[d.connect, default: 0] += 1 }
        let modes = DeviceConfiguration.ConnectMode.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }
        lines.append("devices: \(devices.count) (" + modes.joined(separator: ", ") + ")")
        for d in devices { lines += deviceLines(d) }
        let keep = counts[.keep] ?? 0
        if keep > slots {
            lines.append("warning: \(keep) keep devices but \(slots) connection slots; \(keep - slots) will wait for a slot")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func deviceLines(_ d: DeviceConfiguration) -> [String] {
        let who: String
        switch d.identity {
        case .address(let a, let type): who = "\(a) \(type)"
        case .irk: who = "resolvable private addresses (irk)"
        }
        var head = "  \(d.name): \(who); "
        switch d.connect {
        case .never: head += "advertisements only"
        case .keep: head += "connect keep"
        case .on_demand: head += "connect on_demand (when a set arrives)"
        case .poll: head += "connect poll every \(DurationText.format(d.pollInterval ?? .seconds(600)))"
        }
        if !d.adapters.isEmpty { head += "; adapters " + d.adapters.joined(separator: ", ") }
        if let a = d.advertisement {
            head += "; decoder \(a.rawValue)" + (d.bindkey == nil ? "" : " (encrypted, bindkey set)")
        }
        var lines = [head]
        let topic = "\(mqtt.base)/dev/\(d.name)/"
        for b in d.gatt {
            var what = b.characteristic.description.lowercased()
            if let s = b.service { what += " in service \(s.description.lowercased())" }
            var decode = " as \(b.format.rawValue)"
            if let s = b.scale { decode += ", scale \(number(s))" }
            if let u = b.unit { decode += ", unit \(u)" }
            if b.subscription != .none {
                lines.append("    subscribe \(what) (\(b.subscription.rawValue)) -> \(topic)\(b.topic)\(decode)")
            }
            switch b.read {
            case .never: break
            case .onConnect: lines.append("    read \(what) on connect -> \(topic)\(b.topic)\(decode)")
            case .every(let p): lines.append("    read \(what) every \(DurationText.format(p)) -> \(topic)\(b.topic)\(decode)")
            }
            if b.write {
                lines.append("    write \(what) <- \(topic)\(b.topic)/set, result on \(topic)\(b.topic)/result")
            }
        }
        if let every = d.every, d.connect != .poll {
            lines.append("    note: every \(DurationText.format(every)) is ignored (it is for connect: poll)")
        }
        return lines
    }
}

/// `320` for whole numbers, `321.25` otherwise.
func number(_ d: Double) -> String {
    if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
    return "\(d)"
}
