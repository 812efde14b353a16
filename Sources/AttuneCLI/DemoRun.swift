import ATTPresentation
import Attune
import Foundation

/// The steps of `attune demo`, each printed as text or as one JSON line, and the checks
/// that decide its exit status.
struct DemoRun {
    let json: Bool
    let seconds: Int
    let mtu: Int
    private(set) var failures: [String] = []
    private(set) var checks = 0
    /// The ATT_MTU the exchange settled on; the PDU counts printed follow from it.
    private(set) var negotiatedMTU = 23

    init(json: Bool, seconds: Int, mtu: Int) {
        self.json = json
        self.seconds = seconds
        self.mtu = mtu
    }

    /// One event: a text line, or a JSON object with `"event"` first.
    func emit(_ event: String, text: String, _ fields: [(String, JSONValue)] = []) {
        if json {
            Output.live(JSONValue.object([("event", .string(event))] + fields).description)
        } else {
            Output.live(text)
        }
    }

    mutating func check(_ ok: Bool, _ what: String) {
        checks += 1
        if !ok { fail(what) }
    }

    mutating func fail(_ what: String) {
        failures.append(what)
        Output.error(what)
    }

    /// Scans for the demo's Heart Rate service and connects with the MTU exchange and
    /// full discovery.
    mutating func connect(_ central: CentralManager) async throws -> Peripheral {
        Output.status("scanning for the Heart Rate service")
        var found: Advertisement?
        for await ad in try central.scan(services: [DemoPeripheral.heartRateService]) {
            found = ad
            break
        }
        guard let ad = found else { throw CLIError.failure("the demo peripheral was not found while scanning") }
        let services = ad.serviceUUIDs.map(\.description).joined(separator: ", ")
        emit("found", text: "found \"\(PeerText.escaped(ad.localName ?? "?"))\" \(ad.address) (\(ad.addressType.map { "\($0)" } ?? "?"))  RSSI \(ad.rssi ?? 0)  services \(services)",
             [("name", ad.localName.map(JSONValue.string) ?? .null), ("address", .string(ad.address.description)),
              ("rssi", .int(Int(ad.rssi ?? 0))), ("services", .array(ad.serviceUUIDs.map { .string($0.description) }))])
        let peripheral = central.peripheral(for: ad)
        Output.status("connecting (asking for ATT_MTU \(mtu)), exchanging MTU, discovering")
        try await central.connect(peripheral, timeout: .seconds(10), preferredMTU: mtu)
        negotiatedMTU = await peripheral.mtu
        emit("connected", text: "connected  ATT_MTU \(negotiatedMTU)", [("mtu", .int(negotiatedMTU))])
        return peripheral
    }

    /// Discovery, reads, long read and long write, then subscriptions.
    mutating func exercise(_ peripheral: Peripheral) async throws {
        let tree = try await CentralContext.tree(of: peripheral)
        if json {
            emit("services", text: "", [("services", GATTTreeOutput.json(tree))])
        } else {
            for line in GATTTreeOutput.lines(tree) { Output.live(line) }
        }
        let all = tree.flatMap { $0.characteristics ?? [] }
        func find(_ uuid: BluetoothUUID) throws -> Characteristic {
            guard let c = all.first(where: { $0.uuid == uuid }) else {
                throw CLIError.failure("the demo's characteristic \(uuid) was not discovered")
            }
            return c
        }
        check(tree.contains { $0.uuid == DemoPeripheral.customService }, "the custom 128-bit service was not discovered")
        check(tree.contains { $0.uuid == DemoPeripheral.includingService
                              && $0.includedServices?.map(\.uuid) == [DemoPeripheral.secondaryService] }
              && tree.contains { $0.uuid == DemoPeripheral.secondaryService && !$0.isPrimary && $0.characteristics?.isEmpty == false },
              "the secondary service was not reached through its include")

        // Short reads: the Device Information strings and the sensor location.
        for (uuid, expected) in [(DemoPeripheral.manufacturerName, "Attune"), (DemoPeripheral.modelNumber, "Demo HR-1"),
                                 (DemoPeripheral.firmwareRevision, "1.0.0")] {
            let value = try await peripheral.readValue(for: try find(uuid))
            let text = String(decoding: value, as: UTF8.self)
            report(read: uuid, value, ok: text == expected, note: "\"\(PeerText.escaped(text))\"")
        }
        let location = try await peripheral.readValue(for: try find(DemoPeripheral.bodySensorLocation))
        report(read: DemoPeripheral.bodySensorLocation, location, ok: location == DemoPeripheral.sensorLocation,
               note: location == [0x01] ? "chest" : "")

        // The long read: more than one Read Response can carry below ATT_MTU 302.
        let long = try await peripheral.readValue(for: try find(DemoPeripheral.longReadCharacteristic))
        let blobs = Self.parts(long.count, first: negotiatedMTU - 1, rest: negotiatedMTU - 1) - 1
        report(read: DemoPeripheral.longReadCharacteristic, long, ok: long == DemoPeripheral.longReadValue,
               note: blobs > 0 ? "long read: Read Request + \(blobs) Read Blob" : "one Read Response (ATT_MTU ≥ 302)")

        // The long write: Prepare Write + Execute Write, then read back.
        let writable = try find(DemoPeripheral.longWriteCharacteristic)
        try await peripheral.writeValue(DemoPeripheral.longWriteValue, for: writable, type: .withResponse)
        let back = try await peripheral.readValue(for: writable)
        let same = back == DemoPeripheral.longWriteValue
        check(same, "the 512-byte long write read back \(back.count) bytes that differ from what was written")
        emit("write", text: "write  \(GATTTreeOutput.label(writable.uuid))  \(DemoPeripheral.longWriteValue.count) bytes"
                + " (long write: \(Self.parts(512, first: negotiatedMTU - 5, rest: negotiatedMTU - 5)) Prepare Write + Execute Write), read back \(back.count) bytes: \(same ? "verified" : "MISMATCH")",
             [("uuid", .string(writable.uuid.description)), ("handle", .int(Int(writable.valueHandle.rawValue))),
              ("length", .int(DemoPeripheral.longWriteValue.count)), ("read_back", .int(back.count)), ("verified", .bool(same))])

        try await listen(peripheral, [try find(DemoPeripheral.batteryLevel), try find(DemoPeripheral.heartRateMeasurement),
                                      try find(DemoPeripheral.indicateCharacteristic)])
    }

    private mutating func report(read uuid: BluetoothUUID, _ value: [UInt8], ok: Bool, note: String) {
        check(ok, "read of \(uuid) returned \(value.count) unexpected bytes")
        let shown = value.count > 16 ? hexString(value.prefix(16)) + " …" : hexString(value)
        emit("read", text: "read   \(GATTTreeOutput.label(uuid))  \(byteCount(value.count))  \(shown)  \(note)  \(ok ? "verified" : "MISMATCH")",
             [("uuid", .string(uuid.description)), ("length", .int(value.count)), ("value", .hex(value)),
              ("verified", .bool(ok))])
    }

    static func parts(_ length: Int, first: Int, rest: Int) -> Int {
        length <= first ? 1 : 1 + (length - first + rest - 1) / rest
    }

    /// Subscribes and prints values as they arrive for ``seconds``.
    private mutating func listen(_ peripheral: Peripheral, _ characteristics: [Characteristic]) async throws {
        var streams: [(Characteristic, NotificationStream)] = []
        for c in characteristics {
            streams.append((c, await peripheral.notifications(for: c)))
            try await peripheral.setNotifyValue(true, for: c)
            let kind = c.properties.contains(.notify) ? "notify" : "indicate"
            emit("subscribed", text: "subscribed  \(GATTTreeOutput.label(c.uuid))  (\(kind))",
                 [("uuid", .string(c.uuid.description)), ("handle", .int(Int(c.valueHandle.rawValue))), ("kind", .string(kind))])
        }
        Output.status("listening for \(seconds) s")
        let start = ContinuousClock.now
        let json = self.json
        let counts = await withTaskGroup(of: (AttributeHandle, Int).self) { group in
            for (c, stream) in streams {
                group.addTask {
                    var n = 0
                    do {
                        for try await notification in stream {
                            n += 1
                            Self.printValue(notification.value, of: c, at: ContinuousClock.now - start, json: json)
                        }
                    } catch {
                        Output.error("\(c.uuid): \(error)")
                    }
                    return (c.valueHandle, n)
                }
            }
            try? await Task.sleep(for: .seconds(seconds))
            group.cancelAll()
            var counts: [AttributeHandle: Int] = [:]
            for await (handle, n) in group { counts[handle] = n }
            return counts
        }
        for c in characteristics {
            let n = counts[c.valueHandle] ?? 0
            check(n > 0, "no \(c.properties.contains(.notify) ? "notification" : "indication") from \(c.uuid) in \(seconds) s")
        }
        let notifications = characteristics.filter { $0.properties.contains(.notify) }.reduce(0) { $0 + (counts[$1.valueHandle] ?? 0) }
        let indications = characteristics.filter { !$0.properties.contains(.notify) }.reduce(0) { $0 + (counts[$1.valueHandle] ?? 0) }
        lastCounts = (notifications, indications)
    }

    private(set) var lastCounts = (notifications: 0, indications: 0)

    static func printValue(_ value: [UInt8], of c: Characteristic, at elapsed: Duration, json: Bool) {
        let kind = c.properties.contains(.notify) ? "notification" : "indication"
        let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        var meaning = ""
        switch c.uuid {
        case DemoPeripheral.heartRateMeasurement where value.count >= 2:
            meaning = "\(value[0] & 1 == 0 ? Int(value[1]) : Int(value[1]) | Int(value.count > 2 ? value[2] : 0) << 8) bpm"
        case DemoPeripheral.batteryLevel where value.count == 1:
            meaning = "\(value[0]) %"
        case DemoPeripheral.indicateCharacteristic where value.count == 4:
            meaning = "#\(value.reversed().reduce(0) { $0 << 8 | Int($1) })"
        default:
            break
        }
        if json {
            Output.live(JSONValue.object([
                ("event", .string(kind)), ("ms", .int(ms)), ("uuid", .string(c.uuid.description)),
                ("handle", .int(Int(c.valueHandle.rawValue))), ("value", .hex(value)),
            ]).description)
        } else {
            let time = "+\(ms / 1000).\(String(repeating: "0", count: 3 - String(ms % 1000).count))\(ms % 1000)s"
            Output.live("\(time)  \(kind.padding(12)) \(c.valueHandle)  \(GATTTreeOutput.label(c.uuid))  \(hexString(value, separator: " ", empty: ""))  \(meaning)")
        }
    }

    /// The closing line.
    func finish() {
        let ok = failures.isEmpty
        let text = "\(lastCounts.notifications) notifications, \(lastCounts.indications) indications; "
            + (ok ? "all \(checks) checks passed" : "\(failures.count) of \(checks) checks FAILED")
        emit("result", text: text, [("ok", .bool(ok)), ("checks", .int(checks)), ("failures", .array(failures.map { .string($0) })),
                                    ("notifications", .int(lastCounts.notifications)), ("indications", .int(lastCounts.indications))])
    }
}
