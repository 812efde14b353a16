import Attune
import Foundation

/// `attune serve --capture FILE`: the peripheral a capture recorded, served by a
/// ``CapturedPeripheral`` on any transport, printing what centrals do and what it pushes.
enum ServeCaptureRun {
    static func run(_ path: String, _ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("give --capture FILE or a DB.json, not both") }
        let seconds = try arguments.integer("seconds", default: 0, in: 0...86_400)
        let speed = try speedOption(arguments)
        var handle: UInt16?
        if let text = arguments.option("conn") {
            handle = text.hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text)
            if handle == nil { throw CLIError.usage("--conn \(text) is not a connection handle") }
        }
        let recording: CapturedPeripheral
        do { recording = try CapturedPeripheral(capture: path, conversation: handle) } catch {
            if case .database = error { throw CLIError.failure("\(path): \(error)") }
            throw CLIError.failure("\(path): \(error)\(handle.map { " on connection 0x\(String($0, radix: 16))" } ?? "")")
        }
        let name = arguments.option("name") ?? recording.localName
        let parsed = try TransportOption.parse(arguments.option("transport"))
        let radio = parsed == nil ? MemoryRadio() : nil
        let transport = parsed ?? .memory(radio!)
        try TransportOption.requireKernel(for: transport)
        let snoop = try TransportOption.openSnoop(arguments.option("snoop"), keepingKeys: arguments.flag("snoop-keys"))
        let served: ServedCapture
        do {
            served = try await recording.start(on: transport, name: name, speed: speed, snoop: snoop)
        } catch {
            throw CLIError.failure("cannot serve \(path): \(error)")
        }
        Shutdown.register(served.manager)
        let script = recording.script
        Output.status("serving \(script.database.services.count) services (\(script.database.attributes.count) attributes) "
            + "and \(script.pushes.count) pushes of connection 0x\(String(script.conversation.handle, radix: 16)) "
            + "of \(path) as \"\(name)\" on \(transport.description), at \(speed)× the captured pace")
        let printer = ServeEventPrinter(json: arguments.flag("json"), values: ServedValues(published: [], initial: []))
        let events = Task { for await event in served.manager.events { await printer.show(event) } }
        let own = Task { for await event in served.events { await printer.show(event) } }

        let status = await BuiltInCentral.serveLifetime(radio: radio, seconds: seconds) { radio in
            try await CaptureExerciser.run(on: radio, name: name, recording: recording, speed: speed)
        }
        await served.stop()
        events.cancel()
        own.cancel()
        radio?.setTap(nil)
        try TransportOption.checkSnoop(snoop)
        return status
    }

    /// `--speed X`: a finite factor within 0.001…1000 (default 1).
    static func speedOption(_ arguments: Arguments) throws(CLIError) -> Double {
        guard let text = arguments.option("speed") else { return 1 }
        guard let value = Double(text), value.isFinite, (0.001...1000).contains(value) else {
            throw .usage("--speed takes a factor from 0.001 to 1000, not '\(text)'")
        }
        return value
    }
}

/// The central `attune serve --capture FILE --transport memory` runs against the
/// recording: it connects, reads every readable characteristic, subscribes to every one
/// that notifies or indicates, stays until the pushes timed from those subscriptions
/// came (or their time passed by five seconds), and disconnects.
enum CaptureExerciser {
    static func run(on radio: MemoryRadio, name: String, recording: CapturedPeripheral, speed: Double) async throws {
        guard let link = try await BuiltInCentral.connect(on: radio, name: name) else { return }
        let (central, peripheral) = link
        var subscribed: [Characteristic] = []
        for service in try await peripheral.discoverServices() {
            for c in try await peripheral.discoverCharacteristics(for: service) {
                if c.properties.contains(.read) {
                    // ATT errors are answers worth seeing, as the captured server gave them.
                    switch await read(c, peripheral) {
                    case .success, nil: break
                    case let .failure(error)?: Output.status("test central: \(c.uuid): \(error)")
                    }
                }
                if !c.properties.isDisjoint(with: [.notify, .indicate]) { subscribed.append(c) }
            }
        }
        let pushing = subscribed
        let handles = Set(pushing.map(\.valueHandle))
        let expected = recording.pushes.filter {
            if case .subscription(let h, 0) = $0.anchor { return handles.contains(h) } else { return false }
        }
        let received = Task {
            await withTaskGroup(of: Int.self) { group in
                for c in pushing {
                    let stream = await peripheral.notifications(for: c)
                    let want = expected.filter { $0.handle == c.valueHandle }.count
                    guard want > 0 else { continue }
                    group.addTask {
                        var n = 0
                        // The stream fails when the link ends: what came until then counts.
                        do {
                            for try await _ in stream {
                                n += 1
                                if n == want { break }
                            }
                        } catch {}
                        return n
                    }
                }
                return await group.reduce(0, +)
            }
        }
        for c in pushing {
            // A characteristic the capture showed notifying without a CCCD the rebuilt
            // database could place is said, not fatal: the rest is still exercised.
            do { try await peripheral.setNotifyValue(true, for: c) } catch {
                Output.status("test central: cannot subscribe to \(c.uuid): \(error)")
            }
        }
        let last = expected.map(\.offset).max() ?? .zero
        // Past the last push's time, disconnecting ends the streams still waiting.
        let limit = Task {
            try? await Task.sleep(for: last / speed + .seconds(5))
            if !Task.isCancelled { await central.cancelConnection(peripheral) }
        }
        // Cancelled (serve's --seconds ran out), it stops waiting for pushes timed later.
        let count = await withTaskCancellationHandler {
            await received.value
        } onCancel: {
            received.cancel()
            limit.cancel()
        }
        limit.cancel()
        Output.status("test central: \(count) of \(expected.count) pushes received")
        await central.cancelConnection(peripheral)
    }

    static func read(_ c: Characteristic, _ peripheral: Peripheral) async -> Result<[UInt8], AttuneError>? {
        do { return .success(try await peripheral.readValue(for: c)) } catch { return .failure(error) }
    }
}
