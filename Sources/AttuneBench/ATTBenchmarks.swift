import ATT

/// ATT codec throughput: decoding from a borrowed slice and encoding into a reused buffer.
///
/// `att.decode.*` decodes to the flat ``ATTPDU`` that tools and presentation use;
/// `att.decode.received.*` runs the decode the bearer runs on every received PDU
/// (``ATTReceivedPDU``), the path a connected central or peripheral takes.
enum ATTBenchmarks {
    static var all: [Benchmark] {
        let pdus: [(String, [UInt8])] = [
            ("read_request", [0x0A, 0x03, 0x00]),
            ("read_response_20", [0x0B] + (0..<20).map { UInt8($0) }),
            ("notification_20", [0x1B, 0x14, 0x00] + (0..<20).map { UInt8($0) }),
            ("read_by_type_response_3x7", [0x09, 0x07,
                                           0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A,
                                           0x04, 0x00, 0x02, 0x05, 0x00, 0x01, 0x2A,
                                           0x06, 0x00, 0x0A, 0x07, 0x00, 0x29, 0x2A]),
            ("find_information_response_4x16", [0x05, 0x01, 0x04, 0x00, 0x02, 0x29, 0x05, 0x00, 0x01, 0x29,
                                                0x06, 0x00, 0x04, 0x29, 0x07, 0x00, 0x00, 0x29]),
            ("error_response", [0x01, 0x0A, 0x03, 0x00, 0x0A]),
        ]
        var out: [Benchmark] = []
        for (name, bytes) in pdus {
            out.append(.throughput("att.decode.\(name)") { n in
                var checksum = 0
                for _ in 0..<n { checksum &+= consume(try! ATTPDU.decode(bytes[...])) }
                blackHole(checksum)
            })
        }
        for (name, bytes) in pdus {
            out.append(.throughput("att.decode.received.\(name)") { n in
                var checksum = 0
                for _ in 0..<n { checksum &+= consume(ATTReceivedPDU(decoding: bytes[...])) }
                blackHole(checksum)
            })
        }
        for (name, bytes) in pdus {
            let pdu = try! ATTPDU.decode(bytes)
            out.append(.throughput("att.encode.\(name)") { n in
                var buffer: [UInt8] = []
                buffer.reserveCapacity(64)
                for _ in 0..<n {
                    buffer.removeAll(keepingCapacity: true)
                    try! pdu.encode(into: &buffer, mtu: 23)
                }
                blackHole(buffer)
            })
        }
        return out
    }

    /// Touches what a consumer would read, including every entry of list responses, so
    /// decoding cost is measured honestly rather than optimised away.
    @inline(__always)
    static func consume(_ pdu: ATTPDU) -> Int {
        switch pdu {
        case .readRequest(let r): return Int(r.handle.rawValue)
        case .readResponse(let r): return r.value.count
        case .handleValueNotification(let n): return Int(n.handle.rawValue) &+ n.value.count
        case .readByTypeResponse(let r): return consume(r)
        case .findInformationResponse(let r): return consume(r)
        case .errorResponse(let e): return Int(e.errorCode.rawValue)
        default: return 0
        }
    }

    /// The same reads as the flat `consume`, reached the way the engines reach
    /// them: by the received PDU's role, then its typed parameters.
    @inline(__always)
    static func consume(_ received: ATTReceivedPDU) -> Int {
        switch received {
        case .request(_, .success(.readRequest(let r))): return Int(r.handle.rawValue)
        case .response(_, .success(let pdu)):
            switch pdu {
            case .readResponse(let r): return r.value.count
            case .readByTypeResponse(let r): return consume(r)
            case .findInformationResponse(let r): return consume(r)
            case .errorResponse(let e): return Int(e.errorCode.rawValue)
            default: return 0
            }
        case .notification(.success(let n)): return Int(n.handle.rawValue) &+ n.value.count
        default: return 0
        }
    }

    @inline(__always)
    static func consume(_ r: ReadByTypeResponse) -> Int {
        var s = 0
        for e in r.entries { s &+= Int(e.handle.rawValue) &+ e.value.count }
        return s
    }

    @inline(__always)
    static func consume(_ r: FindInformationResponse) -> Int {
        var s = 0
        for e in r.entries { s &+= Int(e.handle.rawValue) &+ Int(e.type.uint16 ?? 0) }
        return s
    }
}
