import ATTPresentation
import Attune
import Foundation

/// Prints what happens on `attune serve`'s peripheral manager, and answers the
/// characteristic requests from ``ServedValues``.
actor ServeEventPrinter {
    let json: Bool
    let values: ServedValues
    let start = ContinuousClock.now

    init(json: Bool, values: ServedValues) {
        self.json = json
        self.values = values
    }

    func answer(_ request: ATTRequest, _ manager: PeripheralManager) async {
        let uuid = await values.uuid(of: request.handle)
        switch request.kind {
        case .read:
            let result = await values.read(request.handle, offset: request.offset)
            var fields: [(String, JSONValue)] = [("handle", .int(Int(request.handle.rawValue))), ("offset", .int(request.offset))]
            var text = "\(request.handle)  \(uuid.map(GATTTreeOutput.label) ?? "?")  offset \(request.offset)"
            switch result {
            case .success(let v):
                fields.append(("length", .int(v.count)))
                fields.append(("value", .hex(v)))
                text += "  → \(hexString(v))"
            case .failure(let e):
                fields.append(("error", .int(Int(e.rawValue))))
                text += "  → error \(e)"
            }
            // Said before it is answered: once the central has its answer, the command can
            // end (the built-in central's last read), and an event said after could be lost.
            emit("read", request.central, text: text, fields)
            await manager.respond(to: request, withResult: result)
        case .write(let expectsResponse):
            let error = await values.write(request.writes)
            for w in request.writes {
                emit("write", request.central,
                     text: "\(w.handle)  \(uuid.map(GATTTreeOutput.label) ?? "?")  offset \(w.offset)  \(hexString(w.value))"
                        + (expectsResponse ? "" : "  (command)") + (error.map { "  → error \($0)" } ?? ""),
                     [("handle", .int(Int(w.handle.rawValue))), ("offset", .int(w.offset)),
                      ("value", .hex(w.value)), ("response", .bool(expectsResponse)),
                      ("error", error.map { .int(Int($0.rawValue)) } ?? .null)])
            }
            if expectsResponse {
                await manager.respond(to: request, withResult: error.map { .failure($0) } ?? .success([]))
            }
        }
    }

    func show(_ event: PeripheralManagerEvent) {
        switch event {
        case .centralConnected(let central):
            emit("connected", central, text: "", [])
        case let .centralDisconnected(central, reason):
            emit("disconnected", central, text: "\(reason)", [("reason", .string(reason.description))])
        case let .subscriptionChanged(central, handle, configuration):
            let kind = configuration.contains(.indication) ? "indications" : configuration.contains(.notification) ? "notifications" : "off"
            emit("subscription", central, text: "\(handle)  \(kind)", [("handle", .int(Int(handle.rawValue))), ("kind", .string(kind))])
        case let .valueWritten(central, handle, value):
            emit("written", central, text: "\(handle)  \(hexString(value))",
                 [("handle", .int(Int(handle.rawValue))), ("value", .hex(value))])
        case let .indicationCompleted(central, confirmed):
            emit("indication", central, text: confirmed ? "confirmed" : "not confirmed", [("confirmed", .bool(confirmed))])
        case .requestExpired(let id):
            Output.status("request \(id) expired before it was answered")
        case .requestRefused(let request):
            Output.status("request \(request.id) from \(request.central.address) refused with Insufficient Resources: "
                          + "\(PeripheralManager.requestQueueCapacity) requests already wait for an answer")
        }
    }

    /// What a served capture did: a captured push sent, a write answered as captured.
    func show(_ event: ServedCaptureEvent) {
        switch event {
        case let .pushed(central, handle, value, isIndication, record):
            // Sent as the central subscribed; the capture's own kind is told beside it.
            emit("pushed", central,
                 text: "\(handle)  \(hexString(value))  (record \(record), captured as \(isIndication ? "an indication" : "a notification"))",
                 [("handle", .int(Int(handle.rawValue))), ("value", .hex(value)), ("record", .int(record)),
                  ("captured_indication", .bool(isIndication))])
        case let .writeAnswered(central, handle, value, error):
            emit("write", central, text: "\(handle)  \(hexString(value))" + (error.map { "  → error \($0) as captured" } ?? ""),
                 [("handle", .int(Int(handle.rawValue))), ("value", .hex(value)),
                  ("error", error.map { .int(Int($0.rawValue)) } ?? .null)])
        }
    }

    /// A value sent to every subscribed central.
    func notified(_ characteristic: PublishedCharacteristic, _ value: [UInt8]) {
        line("notified", who: "subscribers",
             text: "\(characteristic.valueHandle)  \(GATTTreeOutput.label(characteristic.uuid))  \(hexString(value))",
             [("handle", .int(Int(characteristic.valueHandle.rawValue))), ("value", .hex(value))])
    }

    private func emit(_ event: String, _ central: Central, text: String, _ fields: [(String, JSONValue)]) {
        line(event, who: central.address.description, text: text, [("central", .string(central.address.description))] + fields)
    }

    private func line(_ event: String, who: String, text: String, _ fields: [(String, JSONValue)]) {
        let elapsed = ContinuousClock.now - start
        let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        if json {
            Output.live(JSONValue.object([("event", .string(event)), ("ms", .int(ms))] + fields).description)
        } else {
            Output.live("+\(ms)ms  \(event.padding(13))\(who)  \(text)")
        }
    }
}
