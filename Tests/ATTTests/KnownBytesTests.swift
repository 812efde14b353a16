import ATTPresentation
import Testing
@testable import ATT
import HexTestSupport

/// One known PDU per opcode: it decodes to the expected fields, prints as a dissector
/// line, and re-encodes to the same bytes.
@Suite struct KnownBytesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let hex: String
        let expected: ATTPDU
        let line: String
        var testDescription: String { line }
    }

    static let cases: [Case] = [
        Case(hex: "010a030008", expected: .errorResponse(ErrorResponse(requestOpcode: .readRequest, handle: 3, errorCode: .insufficientAuthorization)),
             line: "Error Response request Read Request handle 0x0003 error 0x08 Insufficient Authorization"),
        Case(hex: "021700", expected: .exchangeMTURequest(ExchangeMTURequest(clientRxMTU: 23)), line: "Exchange MTU Request client rx mtu 23"),
        Case(hex: "030002", expected: .exchangeMTUResponse(ExchangeMTUResponse(serverRxMTU: 512)), line: "Exchange MTU Response server rx mtu 512"),
        Case(hex: "0404000500", expected: .findInformationRequest(FindInformationRequest(range: .init(start: 4, end: 5))),
             line: "Find Information Request 0x0004..0x0005"),
        Case(hex: "05010400022905000129",
             expected: .findInformationResponse(try! FindInformationResponse(entries: [.init(handle: 4, type: 0x2902), .init(handle: 5, type: 0x2901)])),
             line: "Find Information Response 0x0004 0x2902 (Client Characteristic Configuration), 0x0005 0x2901 (Characteristic User Description)"),
        Case(hex: "060100ffff00280018",
             expected: .findByTypeValueRequest(FindByTypeValueRequest(range: .all, attributeType: 0x2800, value: [0x00, 0x18][...])),
             line: "Find By Type Value Request 0x0001..0xffff type 0x2800 (Primary Service) value 0x1800 (Generic Access)"),
        Case(hex: "0710f018f0", expected: .findByTypeValueResponse(FindByTypeValueResponse(entries: [.init(foundHandle: 0xF010, groupEndHandle: 0xF018)])),
             line: "Find By Type Value Response 0xf010..0xf018"),
        Case(hex: "080100ffff0328", expected: .readByTypeRequest(ReadByTypeRequest(range: .all, attributeType: 0x2803)),
             line: "Read By Type Request 0x0001..0xffff type 0x2803 (Characteristic)"),
        Case(hex: "090712f00213f0002a",
             expected: .readByTypeResponse(try! ReadByTypeResponse(entries: [.init(handle: 0xF012, value: [0x02, 0x13, 0xF0, 0x00, 0x2A][...])])),
             line: "Read By Type Response 0xf012: 0213f0002a"),
        Case(hex: "0a0300", expected: .readRequest(ReadRequest(handle: 3)), line: "Read Request handle 0x0003"),
        Case(hex: "0b426c75655a", expected: .readResponse(ReadResponse(value: [0x42, 0x6c, 0x75, 0x65, 0x5a])), line: "Read Response value 426c75655a"),
        Case(hex: "0cd1001600", expected: .readBlobRequest(ReadBlobRequest(handle: 0xD1, offset: 22)), line: "Read Blob Request handle 0x00d1 offset 22"),
        Case(hex: "0d", expected: .readBlobResponse(ReadBlobResponse(value: [])), line: "Read Blob Response value (empty)"),
        Case(hex: "0e44000600c400", expected: .readMultipleRequest(ReadMultipleRequest(handles: [0x44, 0x06, 0xC4])),
             line: "Read Multiple Request handles 0x0044, 0x0006, 0x00c4"),
        Case(hex: "0f010203", expected: .readMultipleResponse(ReadMultipleResponse(value: [1, 2, 3])), line: "Read Multiple Response value 010203"),
        Case(hex: "100100ffff0028", expected: .readByGroupTypeRequest(ReadByGroupTypeRequest(range: .all, attributeType: 0x2800)),
             line: "Read By Group Type Request 0x0001..0xffff type 0x2800 (Primary Service)"),
        Case(hex: "110610f018f00018",
             expected: .readByGroupTypeResponse(try! ReadByGroupTypeResponse(entries: [.init(handle: 0xF010, endGroupHandle: 0xF018, value: [0x00, 0x18][...])])),
             line: "Read By Group Type Response 0xf010..0xf018 0x1800 (Generic Access)"),
        Case(hex: "120300010203", expected: .writeRequest(WriteRequest(handle: 3, value: [1, 2, 3])), line: "Write Request handle 0x0003 value 010203"),
        Case(hex: "13", expected: .writeResponse(WriteResponse()), line: "Write Response"),
        Case(hex: "1603000000010203", expected: .prepareWriteRequest(PrepareWriteRequest(handle: 3, offset: 0, partValue: [1, 2, 3])),
             line: "Prepare Write Request handle 0x0003 offset 0 part 010203"),
        Case(hex: "1703000300040506", expected: .prepareWriteResponse(PrepareWriteResponse(handle: 3, offset: 3, partValue: [4, 5, 6])),
             line: "Prepare Write Response handle 0x0003 offset 3 part 040506"),
        Case(hex: "1801", expected: .executeWriteRequest(ExecuteWriteRequest(flags: .write)), line: "Execute Write Request write"),
        Case(hex: "19", expected: .executeWriteResponse(ExecuteWriteResponse()), line: "Execute Write Response"),
        Case(hex: "1b1400aabbcc", expected: .handleValueNotification(HandleValueNotification(handle: 0x14, value: [0xAA, 0xBB, 0xCC])),
             line: "Handle Value Notification handle 0x0014 value aabbcc"),
        Case(hex: "1d0300010203", expected: .handleValueIndication(HandleValueIndication(handle: 3, value: [1, 2, 3])),
             line: "Handle Value Indication handle 0x0003 value 010203"),
        Case(hex: "1e", expected: .handleValueConfirmation(HandleValueConfirmation()), line: "Handle Value Confirmation"),
        Case(hex: "2003000700", expected: .readMultipleVariableRequest(ReadMultipleVariableRequest(handles: [3, 7])),
             line: "Read Multiple Variable Request handles 0x0003, 0x0007"),
        Case(hex: "2103000102030000", expected: .readMultipleVariableResponse(try! ReadMultipleVariableResponse(values: [[1, 2, 3], []])),
             line: "Read Multiple Variable Response [3] 010203, [0] (empty)"),
        Case(hex: "2303000200aabb07000100cc",
             expected: .multipleHandleValueNotification(try! MultipleHandleValueNotification(entries: [.init(handle: 3, value: [0xAA, 0xBB][...]), .init(handle: 7, value: [0xCC][...])])),
             line: "Multiple Handle Value Notification 0x0003: aabb, 0x0007: cc"),
        Case(hex: "520700010203", expected: .writeCommand(WriteCommand(handle: 7, value: [1, 2, 3])), line: "Write Command handle 0x0007 value 010203"),
        Case(hex: "d2070001020300000000" + "0102030405060708",
             expected: .signedWriteCommand(SignedWriteCommand(handle: 7, value: [1, 2, 3][...], signature: bytes("000000000102030405060708")[...])),
             line: "Signed Write Command handle 0x0007 value 010203 sign counter 0 signature 000000000102030405060708"),
    ]

    @Test(arguments: cases)
    func decodesAndReencodes(_ c: Case) throws {
        let raw = bytes(c.hex)
        let pdu = try ATTPDU.decode(raw)
        #expect(pdu == c.expected)
        #expect(pdu.description == c.line)
        #expect(try pdu.encoded(mtu: 517) == raw)
        #expect(pdu.encodedLength == raw.count)
    }

    @Test func everyOpcodeOfTheSpecIsCovered() {
        let covered = Set(Self.cases.map { bytes($0.hex)[0] })
        let spec: Set<UInt8> = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10,
                                0x11, 0x12, 0x13, 0x16, 0x17, 0x18, 0x19, 0x1B, 0x1D, 0x1E, 0x20, 0x21, 0x23, 0x52, 0xD2]
        #expect(covered == spec)
        for op in spec { #expect(ATTOpcode(op).kind != .unknown) }
    }

    @Test func opcodeBits() {
        #expect(ATTOpcode.signedWriteCommand.method == 0x12)
        #expect(ATTOpcode.signedWriteCommand.isCommand)
        #expect(ATTOpcode.signedWriteCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.writeCommand.isCommand && !ATTOpcode.writeCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.writeRequest.method == ATTOpcode.writeCommand.method)
        #expect(!ATTOpcode.readRequest.isCommand)
        #expect(ATTOpcode.readRequest.responseOpcode == .readResponse)
        #expect(ATTOpcode.readResponse.responseOpcode == nil)
    }

    @Test func errorCodesHaveReadableDescriptions() {
        for raw in UInt8.min...UInt8.max {
            let code = ATTErrorCode(raw)
            #expect(!code.name.isEmpty && !code.explanation.isEmpty)
        }
        #expect(ATTErrorCode(0x85).isApplicationError && ATTErrorCode(0x85).name == "Application Error 0x85")
        #expect(ATTErrorCode.databaseOutOfSync.description == "0x12 Database Out Of Sync")
        #expect(ATTErrorCode.cccdImproperlyConfigured.rawValue == 0xFD && ATTErrorCode.outOfRange.rawValue == 0xFF)
        #expect(ATTErrorCode.writeRequestRejected.name == "Write Request Rejected")
        #expect(ATTErrorCode.procedureAlreadyInProgress.isCommonProfileError)
    }

    @Test func jsonCarriesOpcodeNameAndFields() throws {
        let pdu = try ATTPDU.decode(bytes("080100ffff0328"))
        #expect(pdu.json.description == #"{"opcode":8,"name":"Read By Type Request","start_handle":1,"end_handle":65535,"type":"2803"}"#)
    }
}
