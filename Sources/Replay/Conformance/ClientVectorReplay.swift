import ATT
import ATTPresentation
import GATT

/// One client vector being replayed: feeds tester PDUs, matches client PDUs, then checks
/// the `expect` object.
struct ClientVectorReplay {
    let vector: ConformanceVector
    let mode: ClientVectorRunner.StartupMode
    let fullClient: Bool
    let expectedDatabase: DiscoveredDatabase?
    let action: JSONValue?
    let expect: JSONValue?
    var connection: GATTLink
    var now = MonotonicTime.zero
    /// Client PDUs not yet matched against the vector.
    var outbox: [[UInt8]] = []
    var divergence: ConformanceDivergence?
    var transcript: [String] = []
    var ready = false
    var actionID: GATTRequestID?
    var actionResult: Result<GATTClientResponse, GATTClientError>?

    init(vector: ConformanceVector, expectedDatabase: DiscoveredDatabase?, mode: ClientVectorRunner.StartupMode) {
        self.vector = vector
        fullClient = vector.iutKind == "gatt_client"
        // Seeding only changes anything when there is a setup phase to skip.
        self.mode = vector.steps.contains { $0.phase == "setup" } ? mode : .fullBootstrap
        self.expectedDatabase = expectedDatabase
        action = vector.action
        expect = vector.expect
        var signingKey: SigningKey?
        // ConformanceVector.load range-checks the counter; a vector built or changed in
        // code is checked here too, and never converted with a trap.
        let counterField = action?["sign_counter"]
        let signCounter: UInt32? = counterField == nil || counterField == .null ? 0 : counterField?.intValue.flatMap { UInt32(exactly: $0) }
        if let csrk = action?["csrk_bytes_as_in_bluez"]?.stringValue.flatMap({ parseHex($0) }), let signCounter {
            signingKey = SigningKey(csrk: csrk, signCounter: signCounter)
        }
        let configuration = GATTClientConfiguration(
            rxMTU: vector.rxMTU, canRaiseSecurity: vector.securityLevel == "auto",
            discoversOnStart: fullClient && self.mode == .fullBootstrap, signingKey: signingKey)
        let seeded = self.mode == .seededCache ? expectedDatabase ?? DiscoveredDatabase() : DiscoveredDatabase()
        connection = GATTLink(configuration: configuration, database: seeded)
        if let security = action?["link_security"]?.stringValue, !security.hasPrefix("low") {
            connection.setLinkEncrypted(true)
        }
        if signCounter == nil {
            fail(nil, expected: "iut_action.sign_counter 0…4294967295", got: counterField?.description ?? "none")
        }
    }

    /// The exchange steps this mode replays, with their indexes in the vector.
    var steps: [(Int, ConformanceVector.Step)] {
        let all = Array(vector.steps.enumerated())
        guard mode == .seededCache else { return all }
        return all.filter { step in
            step.1.phase != "setup" || step.1.pdu.first == ATTOpcode.exchangeMTURequest.rawValue
                || step.1.pdu.first == ATTOpcode.exchangeMTUResponse.rawValue
        }
    }

    mutating func fail(_ step: Int?, expected: String, got: String) {
        if divergence == nil { divergence = ConformanceDivergence(step: step, expected: expected, got: got) }
    }

    mutating func run() {
        take(connection.start(at: now))
        // A bare bearer, or a client whose cache was seeded, runs its procedure at once
        // (queued behind Exchange MTU); a full client waits until it is ready.
        if !fullClient || mode == .seededCache { performAction() }
        for (index, step) in steps {
            now = now + .milliseconds(1)
            switch step.direction {
            case .iutToTester:
                guard !outbox.isEmpty else {
                    return fail(index, expected: ConformanceDivergence.describe(step.pdu), got: "nothing")
                }
                let sent = outbox.removeFirst()
                transcript.append("iut->tester \(hexString(sent))")
                if sent != step.pdu {
                    return fail(index, expected: ConformanceDivergence.describe(step.pdu), got: ConformanceDivergence.describe(sent))
                }
            case .testerToIUT:
                transcript.append("tester->iut \(hexString(step.pdu))")
                if let extra = outbox.first {
                    return fail(index, expected: "no PDU before \(step.op)", got: ConformanceDivergence.describe(extra))
                }
                take(connection.receive(step.pdu[...], at: now))
                if step.expectNoIUTPDU, let extra = outbox.first {
                    return fail(index, expected: "no answer to \(step.op)", got: ConformanceDivergence.describe(extra))
                }
            }
        }
        if let extra = outbox.first {
            return fail(nil, expected: "no further PDU", got: ConformanceDivergence.describe(extra))
        }
        checkExpectations()
    }

    mutating func performAction() {
        guard let action else { return }
        guard let command = Self.command(for: action) else {
            return fail(nil, expected: "a supported iut_action (a known call, handles and offset in 0…65535)",
                        got: action["call"]?.stringValue ?? "none")
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

    /// A 16-bit field (0 when absent or null); nil when present but not a number in
    /// 0…65535, which makes the whole action unsupported rather than clamped or trapped.
    static func uint16(_ json: JSONValue?) -> UInt16? {
        guard let json, json != .null else { return 0 }
        return json.intValue.flatMap { UInt16(exactly: $0) }
    }

    static func handle(_ json: JSONValue?) -> AttributeHandle? { uint16(json).map { AttributeHandle($0) } }

    static func range(_ action: JSONValue) -> AttributeHandleRange? {
        guard let start = handle(action["start_handle"]), let end = handle(action["end_handle"]) else { return nil }
        return AttributeHandleRange(start: start, end: end)
    }

    /// Maps the vector's `iut_action` to a client command; nil when the call is unknown or
    /// a field is out of range.
    static func command(for action: JSONValue) -> GATTClientCommand? {
        guard let handle = handle(action["handle"]), let range = range(action), let offset = uint16(action["offset"]) else {
            return nil
        }
        let value = action["value_hex"]?.stringValue.flatMap({ parseHex($0) }) ?? []
        let uuid = action["uuid"]?.stringValue.flatMap(BluetoothUUID.init)
        switch action["call"]?.stringValue {
        case "discover_primary_services": return .discoverAllPrimaryServices(in: range)
        case "discover_primary_services_by_uuid": return uuid.map { .discoverPrimaryServices($0, in: range) }
        case "find_included_services": return .findIncludedServices(in: range)
        case "discover_characteristics": return .discoverAllCharacteristics(in: range)
        case "discover_descriptors": return .discoverDescriptors(in: range)
        case "read_value": return .readValue(handle)
        case "read_using_characteristic_uuid": return uuid.map { .readUsingCharacteristicUUID($0, in: range) }
        case "read_long_value": return .readLongValue(handle, offset: offset)
        case "read_multiple":
            var handles: [AttributeHandle] = []
            for h in action["handles"]?.arrayValue ?? [] {
                guard let h = Self.handle(h) else { return nil }
                handles.append(h)
            }
            return .readMultiple(handles)
        case "write_value": return .writeValue(handle, value)
        case "write_without_response":
            return action["signed"]?.boolValue == true ? .signedWriteWithoutResponse(handle, value)
                : .writeWithoutResponse(handle, value)
        case "write_long_value":
            return action["reliable"]?.boolValue == true ? .reliableWrite([PreparedWrite(handle: handle, offset: offset, value: value)])
                : .writeLongValue(handle, offset: offset, value)
        case "register_notify": return Self.handle(action["value_handle"]).map { .subscribe(valueHandle: $0) }
        default: return nil
        }
    }

    mutating func checkExpectations() {
        guard divergence == nil, let expect else { return }
        let testerSpoke = steps.contains { $0.1.direction == .testerToIUT }
        if expect["client_ready"]?.boolValue == true, fullClient, mode == .fullBootstrap, testerSpoke, !ready {
            fail(nil, expected: "client ready", got: "client never became ready")
        }
        if let name = expect["discovered_cache_equals_db"]?.stringValue, mode == .fullBootstrap, let expectedDatabase {
            let diff = connection.client.database.differences(from: expectedDatabase)
            if !diff.isEmpty { fail(nil, expected: "discovered database equal to \(name)", got: diff.joined(separator: "; ")) }
        }
        guard action != nil else { return }
        let got = actionResult.map { "\($0)" } ?? "no completion"
        if let code = expect["att_ecode"]?.stringValue, let raw = UInt8(code.dropFirst(2), radix: 16) {
            switch actionResult {
            case .success where raw == 0: break
            case let .failure(error) where error.attErrorCode?.rawValue == raw && raw != 0: break
            default: fail(nil, expected: raw == 0 ? "success" : "ATT error \(code)", got: got)
            }
        }
        if let success = expect["procedure_success"]?.boolValue ?? expect["ccc_write_success"]?.boolValue {
            switch actionResult {
            case .success where success, .failure where !success: break
            default: fail(nil, expected: success ? "success" : "failure", got: got)
            }
        }
        if let hex = expect["value_hex"]?.stringValue, let value = parseHex(hex) {
            if case let .success(response) = actionResult, response.value == value {} else {
                fail(nil, expected: "value \(hex)", got: got)
            }
        }
        if expect["reliable_error"]?.boolValue == false, case let .failure(.protocolViolation(v)) = actionResult,
           case .preparedWriteMismatch = v.reason {
            fail(nil, expected: "the server's ATT error", got: "a reliable-write mismatch")
        }
    }
}
