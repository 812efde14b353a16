import Attune
import Capture
import Foundation
import Replay
import Testing

/// `CapturedPeripheral` serves a recording to our own central over the memory radio:
/// what the central discovers, reads, writes and receives is checked against the
/// capture itself, not against the rebuilt database.
@Suite("Captured peripheral")
struct CapturedPeripheralTests {
    static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/captures/kernel/bluez_hr_mtu517.btsnoop").path

    /// What the captured server answered in its first discovery of primary services.
    static func capturedPrimaryServices(_ c: ATTConversation) -> [String] {
        var responseTo: [Int: ATTPDU] = [:]
        for t in c.transactions {
            if let r = t.response, case let .success(pdu) = c.pdus[r].pdu { responseTo[t.request] = pdu }
        }
        let procedures = ClientProcedureInference.procedures(in: c)
        guard let first = procedures.first(where: {
            if case .discoverAllPrimaryServices = $0.kind { return true } else { return false }
        }) else { return [] }
        var found: [String] = []
        for i in first.requests {
            guard case let .readByGroupTypeResponse(r)? = responseTo[i] else { continue }
            for e in r.entries {
                found.append("\(e.handle)-\(e.endGroupHandle) \(BluetoothUUID(littleEndian: e.value).map { "\($0)" } ?? "?")")
            }
        }
        return found
    }

    /// Characteristic declarations the capture showed: value handle → "uuid properties".
    static func capturedCharacteristics(_ c: ATTConversation) -> [AttributeHandle: String] {
        var found: [AttributeHandle: String] = [:]
        for pdu in c.pdus {
            guard case let .success(.readByTypeResponse(r)) = pdu.pdu else { continue }
            for e in r.entries where e.value.count == 5 || e.value.count == 19 {
                let s = e.value.startIndex
                let valueHandle = AttributeHandle(UInt16(e.value[s + 1]) | UInt16(e.value[s + 2]) << 8)
                guard let uuid = BluetoothUUID(littleEndian: e.value[(s + 3)...]), found[valueHandle] == nil else { continue }
                found[valueHandle] = "\(uuid) 0x\(String(e.value[s], radix: 16))"
            }
        }
        return found
    }

    /// First complete reads of each handle, before the capture wrote it.
    static func capturedReads(_ c: ATTConversation) -> [AttributeHandle: [UInt8]] {
        var reads: [AttributeHandle: [UInt8]] = [:]
        var written: Set<AttributeHandle> = []
        for t in c.transactions {
            guard let r = t.response, case let .success(request) = c.pdus[t.request].pdu,
                  case let .success(response) = c.pdus[r].pdu else { continue }
            switch (request, response) {
            case let (.writeRequest(w), _): written.insert(w.handle)
            case let (.prepareWriteRequest(w), _): written.insert(w.handle)
            case let (.readRequest(q), .readResponse(p)) where !written.contains(q.handle) && reads[q.handle] == nil:
                if p.value.count < c.mtu - 1 { reads[q.handle] = Array(p.value) }
            default: break
            }
        }
        return reads
    }

    /// Write Requests the captured server refused, with its error.
    static func capturedRefusals(_ c: ATTConversation) -> [(AttributeHandle, [UInt8], ATTErrorCode)] {
        var refused: [(AttributeHandle, [UInt8], ATTErrorCode)] = []
        for t in c.transactions {
            guard let r = t.response, case let .success(.writeRequest(w)) = c.pdus[t.request].pdu,
                  case let .success(.errorResponse(e)) = c.pdus[r].pdu else { continue }
            refused.append((w.handle, Array(w.value), e.errorCode))
        }
        return refused
    }

    @Test(.timeLimit(.minutes(10)))
    func servesTheKernelFixtureToOurCentral() async throws {
        let recording = try CapturedPeripheral(capture: Self.fixture)
        let conversation = recording.script.conversation
        let radio = MemoryRadio()
        let clock = ManualClock()
        let speed = 4.0
        let served = try await recording.start(on: .memory(radio), speed: speed, clock: clock)
        let central = CentralManager(transport: .memory(radio))
        let name = recording.localName
        let ad = try await first(try central.scan(), "the recording's advertisement") { $0.localName == name }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral, timeout: hangGuard)

        // Discovery finds what the captured server answered.
        let services = try await peripheral.discoverServices()
        let expectedServices = Self.capturedPrimaryServices(conversation)
        #expect(!expectedServices.isEmpty)
        #expect(services.map { "\($0.startHandle)-\($0.endHandle) \($0.uuid)" } == expectedServices)
        let declared = Self.capturedCharacteristics(conversation)
        var characteristics: [AttributeHandle: Characteristic] = [:]
        for service in services {
            for c in try await peripheral.discoverCharacteristics(for: service) {
                #expect(declared[c.valueHandle] == "\(c.uuid) 0x\(String(c.properties.rawValue, radix: 16))", "\(c.valueHandle)")
                characteristics[c.valueHandle] = c
            }
        }
        #expect(characteristics.count == declared.count)

        // Reads return the captured values.
        let reads = Self.capturedReads(conversation).filter { characteristics[$0.key] != nil }
        #expect(reads.count >= 3)
        for (handle, value) in reads {
            let c = try #require(characteristics[handle])
            #expect(try await peripheral.readValue(for: c) == value, "\(handle)")
        }

        // Writes the captured server refused are refused with its error.
        let refusals = Self.capturedRefusals(conversation).filter { characteristics[$0.0]?.properties.contains(.write) == true }
        #expect(!refusals.isEmpty)
        for (handle, value, code) in refusals {
            let c = try #require(characteristics[handle])
            await #expect(throws: AttuneError.att(code)) {
                try await peripheral.writeValue(value, for: c, type: .withResponse)
            }
        }

        // Notifications arrive at their captured pace: the characteristic pushed most
        // after its first subscription, each value once the clock reaches its offset.
        var counts: [AttributeHandle: Int] = [:]
        for p in recording.pushes { if case .subscription(let h, 0) = p.anchor { counts[h, default: 0] += 1 } }
        let pushed = try #require(counts.max { $0.value < $1.value }?.key)
        let pushes = recording.pushes.filter { $0.anchor == .subscription(pushed, ordinal: 0) }
        #expect(pushes.count >= 2)
        let measurement = try #require(characteristics[pushed])
        var values = await peripheral.notifications(for: measurement).makeAsyncIterator()
        try await peripheral.setNotifyValue(true, for: measurement)
        let subscribedAt = clock.now
        var arrivals: [Duration] = []
        for push in pushes {
            let due = subscribedAt.advanced(by: push.offset / speed)
            // The push waits for its time on the clock...
            try await eventually("push of record \(push.record) waits for its time") { clock.isSleeping(until: due) }
            clock.advance(to: due)
            // ...and arrives once it has come (the suite's time limit guards the wait).
            let notification = try #require(try await values.next(), "notification of record \(push.record)")
            #expect(notification.value == push.value)
            arrivals.append(subscribedAt.duration(to: clock.now))
        }
        let captured = pushes.map { $0.offset / speed }
        for (arrival, expected) in zip(arrivals, captured) {
            #expect(abs((arrival - expected) / .milliseconds(1)) < 1, "arrived at \(arrival), captured at \(expected)")
        }
        print("captured peripheral: \(services.count) services, \(characteristics.count) characteristics, \(reads.count) reads, \(refusals.count) refusals, \(pushes.count) pushes of \(pushed) at \(arrivals)")
        await central.cancelConnection(peripheral)
        await served.stop()
    }

    @Test func speedsOutsideTheRangeAndAbsentConnectionsAreRefused() async throws {
        let recording = try CapturedPeripheral(capture: Self.fixture)
        for speed in [0, -1, .nan, .infinity, 1e9] as [Double] {
            await #expect(throws: AttuneError.self) {
                _ = try await recording.start(on: .memory(MemoryRadio()), speed: speed)
            }
        }
        #expect(throws: ReplayError.self) { _ = try CapturedPeripheral(capture: Self.fixture, conversation: 0x0999) }
        #expect(throws: ReplayError.self) { _ = try CapturedPeripheral(capture: "/nonexistent.btsnoop") }
    }
}
