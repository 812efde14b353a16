import ATT
import Testing
@testable import GATT

/// A server that answers every Read By Group Type Request with one single-handle service
/// keeps a discovery going for one round trip per handle. The client's work per response
/// must stay constant, so 65,535 round trips cost 65,535 steps, not their square.
@Suite("Client discovery against a flooding server")
struct ClientDiscoveryFloodTests {
    /// Answers the client's requests: one 16-bit primary service per Read By Group Type
    /// Request, at the requested start handle, while that handle is at most `services`;
    /// Attribute Not Found for everything else.
    struct FloodingServer {
        var services: Int
        /// Start handles of the Read By Group Type Requests for primary services, in order.
        var primaryStarts: [UInt16] = []

        mutating func answer(_ request: [UInt8]) -> [UInt8] {
            let opcode = request[0]
            let start = request.count >= 3 ? UInt16(request[1]) | UInt16(request[2]) << 8 : 0
            let isPrimaryWalk = opcode == 0x10 && request.count == 7 && request[5] == 0x00 && request[6] == 0x28
            if isPrimaryWalk { primaryStarts.append(start) }
            if isPrimaryWalk && Int(start) <= services {
                let uuid = UInt16(truncatingIfNeeded: 0x1800 &+ start)
                return [0x11, 0x06, UInt8(start & 0xFF), UInt8(start >> 8), UInt8(start & 0xFF), UInt8(start >> 8),
                        UInt8(uuid & 0xFF), UInt8(uuid >> 8)]
            }
            return [0x01, opcode, UInt8(start & 0xFF), UInt8(start >> 8), 0x0A]
        }
    }

    /// Runs Discover Database against the server until it completes; `step` is how far
    /// the injected clock moves per response.
    static func discover(_ server: inout FloodingServer, configuration: GATTClientConfiguration = GATTClientConfiguration(),
                         step: Duration = .zero) -> (result: Result<GATTClientResponse, GATTClientError>?, connection: GATTLink, responses: Int) {
        let run = DiscoveryRun(configuration: configuration, step: step) { server.answer($0) }
        return (run.result, run.connection, run.responses)
    }

    @Test("10,000 one-service responses: every service found, every request moves forward")
    func twentyThousandServices() {
        var server = FloodingServer(services: 10_000)
        let clock = ContinuousClock()
        let start = clock.now
        let (result, _, _) = Self.discover(&server)
        let elapsed20 = clock.now - start
        guard case let .database(database)? = result?.success else { Issue.record("\(String(describing: result))"); return }
        #expect(database.services.count == 10_000)
        #expect(database.services.first?.handleRange == AttributeHandleRange(start: 1, end: 1))
        #expect(database.services.last?.handleRange == AttributeHandleRange(start: 10_000, end: 10_000))
        #expect(server.primaryStarts.count == 10_001, "one request per service, then the one answered Not Found")
        #expect(zip(server.primaryStarts, server.primaryStarts.dropFirst()).allSatisfy { $0 < $1 })

        // Linearity is shown, not asserted: twice the services should take about twice as long.
        var bigger = FloodingServer(services: 20_000)
        let start40 = clock.now
        let (result40, _, _) = Self.discover(&bigger)
        let elapsed40 = clock.now - start40
        if case let .database(database40)? = result40?.success {
            #expect(database40.services.count == 20_000)
        } else {
            Issue.record("\(String(describing: result40))")
        }
        print("discovery of 10,000 services: \(elapsed20); of 20,000: \(elapsed40); ratio \(elapsed40 / elapsed20)")
    }

    @Test("a discovery still running at the discovery timeout fails with a typed violation; the bearer stays usable")
    func discoveryTimesOut() {
        var server = FloodingServer(services: 65_000)
        // 10 ms per round trip: 6,000 responses reach the 60 s default.
        let (result, connection, responses) = Self.discover(&server, step: .milliseconds(10))
        guard case let .protocolViolation(violation)? = result?.failure,
              case let .discoveryTimedOut(pdus) = violation.reason else {
            Issue.record("\(String(describing: result))"); return
        }
        #expect(pdus == 5_999, "the response due at 60 s is never taken")
        #expect(responses == pdus)
        #expect(violation.opcode == .readByGroupTypeRequest)
        #expect(connection.client.discoveryDeadline == nil)

        // The request outstanding at the deadline is answered late and dropped; the next
        // command then goes out on the same bearer.
        var h = ClientHarness()
        h.connection = connection
        h.now = .seconds(60)
        h.receive(server.answer([0x10, 0x70, 0x17, 0xFF, 0xFF, 0x00, 0x28]))
        #expect(h.results.isEmpty && h.sent.isEmpty)
        let read = h.perform(.readValue(AttributeHandle(0x0003)))
        #expect(h.nextSent() == "0a0300")
        h.receive(hex: "0b2a")
        #expect(h.results[read]?.success == .value([0x2A]))
        #expect(h.closed == nil)
    }

    @Test("the discovery deadline is part of the deadline the engine reports")
    func discoveryDeadlineIsScheduled() {
        var h = ClientHarness(configuration: GATTClientConfiguration(discoveryTimeout: .seconds(45)))
        h.perform(.discoverDatabase)
        #expect(h.connection.client.discoveryDeadline == .seconds(45))
        // The first request's transaction timeout (30 s) comes first.
        #expect(h.deadline == .seconds(30))
        h.now = .seconds(20)
        _ = h.nextSent()
        h.receive(hex: "01080100 0a".replacingOccurrences(of: " ", with: ""))   // Server Supported Features: not found
        #expect(h.nextSent() == "100100ffff0028")
        #expect(h.deadline == .seconds(45), "20 s + 30 s is later than the discovery deadline")
        #expect(h.connection.deadline == .seconds(45))
        h.advance(by: 25)
        guard case .protocolViolation(let v)? = h.results.values.first?.failure, case .discoveryTimedOut(pdus: 1) = v.reason else {
            Issue.record("\(h.results)"); return
        }
    }

    @Test("a start-up discovery past its timeout reports startupFailed")
    func startupDiscoveryTimesOut() {
        var h = ClientHarness(configuration: GATTClientConfiguration(discoveryTimeout: .seconds(5), discoversOnStart: true))
        #expect(!h.sent.isEmpty)
        h.advance(by: 5)
        guard case .startupFailed(.protocolViolation(let v))? = h.events.last, case .discoveryTimedOut(pdus: 0) = v.reason else {
            Issue.record("\(h.events)"); return
        }
        #expect(!h.connection.client.isReady)
    }

    @Test("no discovery timeout: only the transaction timeout is scheduled")
    func noDiscoveryTimeout() {
        var h = ClientHarness(configuration: GATTClientConfiguration(discoveryTimeout: nil))
        h.perform(.discoverDatabase)
        #expect(h.connection.client.discoveryDeadline == nil)
        #expect(h.deadline == .seconds(30))
    }
}
