import ATT

/// One client vector being replayed: feeds tester PDUs, matches client PDUs, then checks
/// the `expect` object.
struct ClientVectorReplay {
    let test: ConformanceJSON
    let id: String
    let mode: ClientVectorRunner.StartupMode
    let fullClient: Bool
    let expectedDatabase: DiscoveredDatabase?
    var connection: GATTClientConnection
    var now = MonotonicTime.zero
    /// Client PDUs not yet matched against the vector.
    var outbox: [[UInt8]] = []
    var failures: [String] = []
    var transcript: [String] = []
    var ready = false
    var actionID: GATTRequestID?
    var actionResult: Result<GATTClientResponse, GATTClientError>?
    var indications = 0

    init(test: ConformanceJSON, databases: [String: ConformanceJSON], mode: ClientVectorRunner.StartupMode) {
        self.test = test
        id = test["id"]?.string ?? "?"
        fullClient = test["iut"]?["kind"]?.string == "gatt_client"
        let hasSetup = test["exchange"]?.array.contains { $0["phase"]?.string == "setup" } ?? false
        // Seeding only changes anything when there is a setup phase to skip.
        self.mode = hasSetup ? mode : .fullBootstrap
        expectedDatabase = test["database"]?.string.flatMap { databases[$0] }.flatMap(DiscoveredDatabase.init(conformanceDatabase:))
        let action = test["iut_action"]
        var signingKey: SigningKey?
        if let csrk = action?["csrk_bytes_as_in_bluez"]?.string.flatMap(bytes(fromHex:)) {
            signingKey = SigningKey(csrk: csrk, signCounter: UInt32(action?["sign_counter"]?.int ?? 0))
        }
        let configuration = GATTClientConfiguration(
            rxMTU: UInt16(test["iut"]?["rx_mtu"]?.int ?? 512),
            canRaiseSecurity: test["iut"]?["security_level"]?.string == "auto",
            discoversOnStart: fullClient && self.mode == .fullBootstrap,
            signingKey: signingKey)
        let seeded = self.mode == .seededCache ? expectedDatabase ?? DiscoveredDatabase() : DiscoveredDatabase()
        connection = GATTClientConnection(configuration: configuration, database: seeded)
        if let security = action?["link_security"]?.string, !security.hasPrefix("low") {
            connection.setLinkEncrypted(true)
        }
    }

    /// The exchange entries this mode replays.
    var entries: [ConformanceJSON] {
        let all = test["exchange"]?.array ?? []
        guard mode == .seededCache else { return all }
        let setup = all.filter { $0["phase"]?.string == "setup" }
        let mtu = setup.filter { ($0["pdu"]?.string ?? "").hasPrefix("02") || ($0["pdu"]?.string ?? "").hasPrefix("03") }
        return mtu + all.filter { $0["phase"]?.string != "setup" }
    }

    mutating func run() {
        take(connection.start(at: now))
        // A bare bearer, or a client whose cache was seeded, runs its procedure at once
        // (queued behind Exchange MTU); a full client waits until it is ready.
        if !fullClient || mode == .seededCache { performAction() }
        for entry in entries {
            guard let hex = entry["pdu"]?.string, let pdu = bytes(fromHex: hex) else {
                failures.append("unreadable PDU in vector")
                return
            }
            if entry["dir"]?.string == "iut->tester" {
                guard !outbox.isEmpty else {
                    failures.append("client sent nothing; expected \(hex) (\(entry["op"]?.string ?? ""))")
                    return
                }
                let sent = outbox.removeFirst()
                transcript.append("iut->tester \(hexString(sent))")
                if sent != pdu {
                    failures.append("client sent \(hexString(sent)); expected \(hex) (\(entry["op"]?.string ?? ""))")
                    return
                }
            } else {
                transcript.append("tester->iut \(hex)")
                if pdu.first == ATTOpcode.handleValueIndication.rawValue { indications += 1 }
                let before = outbox.count
                take(connection.receive(pdu[...], at: now))
                if entry["expect_no_iut_pdu"]?.bool == true, outbox.count != before {
                    failures.append("client answered \(hex), which must get no answer")
                }
            }
        }
        checkExpectations()
    }

    mutating func performAction() {
        guard let action = test["iut_action"], let command = Self.command(for: action) else {
            if let call = test["iut_action"]?["call"]?.string { failures.append("unsupported iut_action \(call)") }
            return
        }
        let (id, actions) = connection.perform(command, at: now)
        actionID = id
        take(actions)
    }

    mutating func take(_ actions: [GATTClientAction]) {
        for action in actions {
            switch action {
            case let .send(bytes): outbox.append(bytes)
            case let .complete(id, result) where id == actionID: actionResult = result
            case .deliver(.ready):
                ready = true
                if fullClient && mode == .fullBootstrap { performAction() }
            default: break
            }
        }
    }

    static func handle(_ json: ConformanceJSON?) -> AttributeHandle { AttributeHandle(UInt16(clamping: json?.int ?? 0)) }

    static func range(_ action: ConformanceJSON) -> AttributeHandleRange {
        AttributeHandleRange(start: handle(action["start_handle"]), end: handle(action["end_handle"]))
    }

    /// Maps the vector's `iut_action` to a client command.
    static func command(for action: ConformanceJSON) -> GATTClientCommand? {
        let value = action["value_hex"]?.string.flatMap(bytes(fromHex:)) ?? []
        let uuid = action["uuid"]?.string.flatMap(BluetoothUUID.init)
        switch action["call"]?.string {
        case "discover_primary_services": return .discoverAllPrimaryServices(in: range(action))
        case "discover_primary_services_by_uuid": return uuid.map { .discoverPrimaryServices($0, in: range(action)) }
        case "find_included_services": return .findIncludedServices(in: range(action))
        case "discover_characteristics": return .discoverAllCharacteristics(in: range(action))
        case "discover_descriptors": return .discoverDescriptors(in: range(action))
        case "read_value": return .readValue(handle(action["handle"]))
        case "read_using_characteristic_uuid": return uuid.map { .readUsingCharacteristicUUID($0, in: range(action)) }
        case "read_long_value": return .readLongValue(handle(action["handle"]), offset: UInt16(action["offset"]?.int ?? 0))
        case "read_multiple": return .readMultiple(action["handles"]?.array.map { handle($0) } ?? [])
        case "write_value": return .writeValue(handle(action["handle"]), value)
        case "write_without_response":
            return action["signed"]?.bool == true ? .signedWriteWithoutResponse(handle(action["handle"]), value)
                : .writeWithoutResponse(handle(action["handle"]), value)
        case "write_long_value":
            let h = handle(action["handle"])
            let offset = UInt16(action["offset"]?.int ?? 0)
            return action["reliable"]?.bool == true ? .reliableWrite([PreparedWrite(handle: h, offset: offset, value: value)])
                : .writeLongValue(h, offset: offset, value)
        case "register_notify": return .subscribe(valueHandle: handle(action["value_handle"]))
        default: return nil
        }
    }

    mutating func checkExpectations() {
        guard failures.isEmpty, let expect = test["expect"] else { return }
        let testerSpoke = entries.contains { $0["dir"]?.string == "tester->iut" }
        if expect["client_ready"]?.bool == true, fullClient, mode == .fullBootstrap, testerSpoke, !ready {
            failures.append("client never became ready")
        }
        if let name = expect["discovered_cache_equals_db"]?.string, mode == .fullBootstrap, let expectedDatabase {
            let diff = connection.client.database.differences(from: expectedDatabase)
            if !diff.isEmpty { failures.append("discovered database differs from \(name): " + diff.joined(separator: "; ")) }
        }
        guard test["iut_action"] != nil else { return }
        if let code = expect["att_ecode"]?.string, let raw = UInt8(code.dropFirst(2), radix: 16) {
            switch actionResult {
            case .success where raw == 0: break
            case let .failure(error) where error.attErrorCode?.rawValue == raw && raw != 0: break
            case nil: failures.append("the procedure never completed; expected ATT error \(code)")
            case let result?: failures.append("expected ATT error \(code), got \(result)")
            }
        }
        if let success = expect["procedure_success"]?.bool ?? expect["ccc_write_success"]?.bool {
            switch actionResult {
            case .success where success, .failure where !success: break
            default: failures.append("expected success \(success), got \(String(describing: actionResult))")
            }
        }
        if let hex = expect["value_hex"]?.string, let value = bytes(fromHex: hex) {
            if case let .success(response) = actionResult, response.value == value {} else {
                failures.append("expected value \(hex), got \(String(describing: actionResult))")
            }
        }
        if expect["reliable_error"]?.bool == false, case let .failure(.protocolViolation(v)) = actionResult,
           case .preparedWriteMismatch = v.reason {
            failures.append("reported a reliable-write mismatch; the server answered with an ATT error")
        }
    }
}
