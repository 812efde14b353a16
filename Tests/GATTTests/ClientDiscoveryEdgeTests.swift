import ATT
import Testing
@testable import GATT

/// A server that declares a one-handle service at every handle up to 0xFFFF, both as a
/// primary and as a secondary service: the discovery must end on its last answer.
@Suite("Client discovery to the last handle")
struct ClientDiscoveryEdgeTests {
    /// One service per Read By Group Type Request, primary or secondary as asked, at the
    /// requested start handle or `first`, whichever is later; Attribute Not Found for
    /// every other request.
    struct EveryHandleServer {
        var first: UInt16
        var requests = 0
        var lastOpcode: UInt8 = 0

        mutating func answer(_ request: [UInt8]) -> [UInt8] {
            requests += 1
            let opcode = request[0]
            lastOpcode = opcode
            let start = request.count >= 3 ? UInt16(request[1]) | UInt16(request[2]) << 8 : 0
            let isServiceWalk = opcode == 0x10 && request.count == 7 && request[6] == 0x28
                && (request[5] == 0x00 || request[5] == 0x01)
            if isServiceWalk {
                let at = max(start, first)
                let uuid = UInt16(truncatingIfNeeded: 0x1800 &+ at)
                return [0x11, 0x06, UInt8(at & 0xFF), UInt8(at >> 8), UInt8(at & 0xFF), UInt8(at >> 8),
                        UInt8(uuid & 0xFF), UInt8(uuid >> 8)]
            }
            return [0x01, opcode, UInt8(start & 0xFF), UInt8(start >> 8), 0x0A]
        }
    }

    static func discover(_ server: inout EveryHandleServer) -> (Result<GATTClientResponse, GATTClientError>?, Int, String) {
        let run = DiscoveryRun { server.answer($0) }
        return (run.result, server.requests, run.lastSent)
    }

    @Test("services up to 0xFFFF, primary and secondary: discovery ends on the last answer")
    func lastHandle() {
        var server = EveryHandleServer(first: 0xFF00)
        let (result, requests, last) = Self.discover(&server)
        guard case let .database(database)? = result?.success else { Issue.record("\(String(describing: result).prefix(300)), last \(last)"); return }
        #expect(database.services.count == 512)
        // Server Supported Features, 256 primaries and 256 secondaries (each walk ends on
        // the service at 0xFFFF: no request past it), includes and characteristics once.
        #expect(requests == 1 + 256 + 256 + 2)
        #expect(last == "0800ffffff0328", "the last request: characteristics over the last service")
    }
}

extension ClientDiscoveryEdgeTests {
    @Test("every handle, 65,535 primary and 65,535 secondary services")
    func everyHandle() {
        var server = EveryHandleServer(first: 1)
        let clock = ContinuousClock()
        let start = clock.now
        let (result, requests, last) = Self.discover(&server)
        print("65,535 primary and 65,535 secondary services: \(requests) requests in \(clock.now - start)")
        guard case let .database(database)? = result?.success else { Issue.record("\(String(describing: result).prefix(300)), last \(last)"); return }
        #expect(database.services.count == 131_070)
        #expect(requests == 1 + 65_535 + 65_535 + 2)
    }
}
