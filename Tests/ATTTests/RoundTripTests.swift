import Testing
@testable import ATT
import HexTestSupport

/// Property-style round trips: many generated values of every PDU type encode, decode
/// back equal, and re-encode to the same bytes.
@Suite struct RoundTripTests {
    /// A small deterministic generator so failures reproduce.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func generate(_ g: inout SplitMix) -> [ATTPDU] {
        func u16() -> UInt16 { UInt16.random(in: 0...UInt16.max, using: &g) }
        func handle() -> AttributeHandle { AttributeHandle(UInt16.random(in: 1...UInt16.max, using: &g)) }
        func bytes(_ max: Int) -> [UInt8] { (0..<Int.random(in: 0...max, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) } }
        func uuid() -> BluetoothUUID {
            Bool.random(using: &g) ? BluetoothUUID(u16()) : BluetoothUUID(high: g.next(), low: g.next())
        }
        let range = AttributeHandleRange(start: AttributeHandle(u16()), end: AttributeHandle(u16()))
        let start = UInt16.random(in: 1...0xFF00, using: &g)
        let valueLength = Int.random(in: 0...20, using: &g)
        let n = Int.random(in: 1...5, using: &g)
        let uuid16 = Bool.random(using: &g)
        return [
            .errorResponse(ErrorResponse(requestOpcode: ATTOpcode(UInt8.random(in: 0...255, using: &g)), handle: AttributeHandle(u16()),
                                         errorCode: ATTErrorCode(UInt8.random(in: 0...255, using: &g)))),
            .exchangeMTURequest(ExchangeMTURequest(clientRxMTU: u16())),
            .exchangeMTUResponse(ExchangeMTUResponse(serverRxMTU: u16())),
            .findInformationRequest(FindInformationRequest(range: range)),
            .findInformationResponse(try! FindInformationResponse(entries: (0..<n).map {
                .init(handle: AttributeHandle(start + UInt16($0)), type: uuid16 ? BluetoothUUID(u16()) : BluetoothUUID(high: g.next(), low: g.next()))
            })),
            .findByTypeValueRequest(FindByTypeValueRequest(range: range, attributeType: u16(), value: bytes(16)[...])),
            .findByTypeValueResponse(FindByTypeValueResponse(entries: (0..<n).map {
                .init(foundHandle: AttributeHandle(start + UInt16($0) * 2), groupEndHandle: AttributeHandle(start + UInt16($0) * 2 + 1))
            })),
            .readByTypeRequest(ReadByTypeRequest(range: range, attributeType: uuid())),
            .readByTypeResponse(try! ReadByTypeResponse(entries: (0..<n).map { i in
                .init(handle: AttributeHandle(start + UInt16(i)), value: (0..<valueLength).map { _ in UInt8.random(in: 0...255, using: &g) }[...])
            })),
            .readRequest(ReadRequest(handle: AttributeHandle(u16()))),
            .readResponse(ReadResponse(value: bytes(22))),
            .readBlobRequest(ReadBlobRequest(handle: AttributeHandle(u16()), offset: u16())),
            .readBlobResponse(ReadBlobResponse(value: bytes(22))),
            .readMultipleRequest(ReadMultipleRequest(handles: (0...n).map { _ in AttributeHandle(u16()) })),
            .readMultipleResponse(ReadMultipleResponse(value: bytes(22))),
            .readByGroupTypeRequest(ReadByGroupTypeRequest(range: range, attributeType: uuid())),
            .readByGroupTypeResponse(try! ReadByGroupTypeResponse(entries: (0..<n).map { i in
                .init(handle: AttributeHandle(start + UInt16(i) * 4), endGroupHandle: AttributeHandle(start + UInt16(i) * 4 + 3),
                      value: uuid16 ? [0x0D, 0x18][...] : BluetoothUUID(high: 1, low: 2).littleEndianBytes[...])
            })),
            .writeRequest(WriteRequest(handle: AttributeHandle(u16()), value: bytes(20))),
            .writeResponse(WriteResponse()),
            .writeCommand(WriteCommand(handle: AttributeHandle(u16()), value: bytes(20))),
            .signedWriteCommand(SignedWriteCommand(handle: AttributeHandle(u16()), value: bytes(8)[...], signature: (0..<12).map { _ in UInt8.random(in: 0...255, using: &g) }[...])),
            .prepareWriteRequest(PrepareWriteRequest(handle: AttributeHandle(u16()), offset: u16(), partValue: bytes(18))),
            .prepareWriteResponse(PrepareWriteResponse(handle: AttributeHandle(u16()), offset: u16(), partValue: bytes(18))),
            .executeWriteRequest(ExecuteWriteRequest(flags: Bool.random(using: &g) ? .write : .cancel)),
            .executeWriteResponse(ExecuteWriteResponse()),
            .handleValueNotification(HandleValueNotification(handle: handle(), value: bytes(20))),
            .handleValueIndication(HandleValueIndication(handle: handle(), value: bytes(20))),
            .handleValueConfirmation(HandleValueConfirmation()),
            .readMultipleVariableRequest(ReadMultipleVariableRequest(handles: (0...n).map { _ in AttributeHandle(u16()) })),
            .readMultipleVariableResponse(try! ReadMultipleVariableResponse(values: (0..<n).map { _ in bytes(6) })),
            .multipleHandleValueNotification(try! MultipleHandleValueNotification(entries: (0..<n).map { _ in .init(handle: handle(), value: bytes(6)[...]) })),
        ]
    }

    @Test func generatedPDUsRoundTrip() throws {
        var g = SplitMix(state: 0xA77E)
        var seen = Set<UInt8>()
        for _ in 0..<300 {
            for pdu in Self.generate(&g) {
                let wire = try pdu.encoded()
                seen.insert(wire[0])
                let back = try ATTPDU.decode(wire)
                #expect(back == pdu, "\(hexString(wire))")
                #expect(try back.encoded() == wire)
            }
        }
        #expect(seen.count == 31)
    }

    @Test func listEntriesIterateInPlace() throws {
        guard case .readByTypeResponse(let r) = try ATTPDU.decode(bytes("0907020002030000" + "2a" + "06000a0700292a")) else {
            Issue.record("decode"); return
        }
        let entries = Array(r.entries)
        #expect(entries.map(\.handle) == [2, 6])
        #expect(Array(entries[1].value) == [0x0A, 0x07, 0x00, 0x29, 0x2A])
        #expect(r.list.count == 2)
    }
}
