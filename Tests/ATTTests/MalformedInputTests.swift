import Testing
@testable import ATT
import HexTestSupport

/// Truncated and oversized input for every opcode, and the strict checks of list
/// responses. Every failure is a typed error with a byte offset, never a trap.
@Suite struct MalformedInputTests {
    /// A minimal valid PDU per opcode. For fixed-size PDUs both a shorter and a longer
    /// input must fail; for variable-size ones, everything shorter than the minimum must.
    static let minimal: [(hex: String, fixedSize: Bool)] = [
        ("010a030008", true), ("021700", true), ("030002", true), ("0401000500", true),
        ("050104000229", false), ("060100ffff0028", false), ("0701000200", false),
        ("080100ffff0328", false), ("0903030001", false), ("0a0300", true), ("0b", false),
        ("0c03000000", true), ("0d", false), ("0e03000400", false), ("0f", false),
        ("100100ffff0028", false), ("110401000200", false), ("120300", false), ("13", true),
        ("1603000000", false), ("1703000000", false), ("1800", true), ("19", true),
        ("1b0300", false), ("1d0300", false), ("1e", true), ("2003000400", false),
        ("210000", false), ("2303000000", false), ("520300", false), ("d20300" + String(repeating: "00", count: 12), false),
    ]

    @Test func minimalPDUsDecode() throws {
        for (hex, _) in Self.minimal {
            let raw = bytes(hex)
            let pdu = try ATTPDU.decode(raw)
            #expect(try pdu.encoded() == raw, "\(hex)")
        }
    }

    @Test func everyTruncationFailsWithOffset() {
        for (hex, _) in Self.minimal {
            let raw = bytes(hex)
            for cut in 0..<raw.count where !(cut >= 1 && variableMinimumAllows(raw, cut)) {
                do {
                    _ = try ATTPDU.decode(Array(raw[0..<cut]))
                    Issue.record("\(hex) cut at \(cut) decoded")
                } catch {
                    #expect(error.offset <= cut, "\(hex) cut \(cut): \(error)")
                    if cut == 0 { #expect(error.reason == .empty) } else { #expect(error.opcode == raw[0]) }
                }
            }
        }
    }

    /// Variable-length PDUs whose minimum is the opcode plus optional fields: a shorter
    /// input can still be another valid PDU of the same opcode (e.g. a Read Response).
    private func variableMinimumAllows(_ raw: [UInt8], _ cut: Int) -> Bool {
        [0x0B, 0x0D, 0x0F].contains(raw[0]) && cut >= 1
    }

    @Test func fixedSizePDUsRejectTrailingBytes() {
        for (hex, fixed) in Self.minimal where fixed {
            let raw = bytes(hex) + [0xEE]
            #expect(throws: ATTDecodingError.self, "\(hex)") { try ATTPDU.decode(raw) }
            do { _ = try ATTPDU.decode(raw) } catch {
                #expect(error.reason == .trailingBytes(count: 1))
                #expect(error.offset == raw.count - 1)
            }
        }
    }

    @Test func notificationNamesTheOffsetWhenTruncated() {
        do {
            _ = try ATTPDU.decode(bytes("1b14"))
            Issue.record("decoded")
        } catch {
            #expect(error.offset == 1)
            #expect(error.description == "truncated attribute handle: needs 2 bytes, 1 left in Handle Value Notification (0x1b) at byte offset 1")
        }
    }

    @Test func listResponsesAreStrict() {
        func reason(_ hex: String) -> ATTDecodingError.Reason? {
            do { _ = try ATTPDU.decode(bytes(hex)); return nil } catch { return error.reason }
        }
        // Find Information: bad format byte, partial entry, zero handle, empty list.
        #expect(reason("0503040002") == .invalidValue(field: "format", value: 3))
        #expect(reason("050104000229050001") == .inconsistentList(field: "information data", entryLength: 4, bodyLength: 7))
        #expect(reason("050100000229") == .zeroHandle(field: "handle"))
        #expect(reason("0501") == .tooFewEntries(field: "information data", count: 0, minimum: 1))
        // Read By Type: length field must divide the list; handles non-zero.
        #expect(reason("09070200020300002a02") == .inconsistentList(field: "attribute data list", entryLength: 7, bodyLength: 8))
        #expect(reason("0901") == .invalidLength(field: "length", length: 1, expected: "at least 2"))
        #expect(reason("0904000001ff") == .zeroHandle(field: "attribute handle"))
        // Read By Group Type: group end below start.
        #expect(reason("110605000400" + "0d18") == .invalidHandleRange(start: 5, end: 4))
        // Find By Type Value: pairs of handles.
        #expect(reason("07010002") == .inconsistentList(field: "handles information list", entryLength: 4, bodyLength: 3))
        // Read Multiple needs two handles.
        #expect(reason("0e0300") == .tooFewEntries(field: "set of handles", count: 1, minimum: 2))
        // Read By Type Request: UUID must be 2 or 16 bytes.
        #expect(reason("080100ffff03280000") == .invalidLength(field: "attribute type", length: 4, expected: "2 or 16"))
        // Execute Write flags are 0 or 1.
        #expect(reason("1802") == .invalidValue(field: "flags", value: 2))
        // Multiple Handle Value Notification: every tuple whole.
        #expect(reason("2303000500aabb") == .truncated(field: "attribute value", needed: 5, available: 2))
        // Unknown opcode.
        #expect(reason("bf00") == .unknownOpcode)
        // Notifications never carry handle 0.
        #expect(reason("1b0000aa") == .zeroHandle(field: "attribute handle"))
    }

    @Test func requestsCarryInvalidHandlesThroughForTheServerToAnswer() throws {
        let pdu = try ATTPDU.decode(bytes("0a0000"))
        #expect(pdu == .readRequest(ReadRequest(handle: 0)))
        guard case .findInformationRequest(let f) = try ATTPDU.decode(bytes("0405000100")) else { Issue.record("decode"); return }
        #expect(f.range.invalidHandle == 5)
    }

    @Test func encodingNeverTruncates() throws {
        let long = ReadResponse(value: [UInt8](repeating: 1, count: 23))
        #expect(throws: ATTEncodingError.exceedsMTU(length: 24, mtu: 23)) { try long.encoded(mtu: 23) }
        #expect(try ReadResponse(value: [UInt8](repeating: 1, count: 22)).encoded(mtu: 23).count == 23)
        #expect(throws: ATTEncodingError.self) { try ReadByTypeResponse(entries: []) }
    }
}
