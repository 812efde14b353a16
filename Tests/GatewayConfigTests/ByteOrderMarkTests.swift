import Testing
@testable import GatewayConfig

/// A config saved by an editor that starts UTF-8 files with a byte order mark loads as
/// it would without one (YAML 1.2 §5.2 allows a BOM at the start of a stream), and its
/// errors keep the lines and columns the editor shows; a UTF-16 or UTF-32 file is told
/// to be saved as UTF-8.
@Suite struct ByteOrderMarkTests {
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    @Test func aLeadingUTF8BOMIsAccepted() throws {
        let plain = try GatewayConfiguration(yaml: Array(issueSample.utf8))
        let marked = try GatewayConfiguration(yaml: Self.bom + Array(issueSample.utf8))
        #expect(marked == plain)
        #expect(try YAMLLoader.load(Self.bom) == YAMLLoader.load([]))
    }

    @Test func errorsAfterABOMKeepTheirPositions() {
        let text = minimalHead + "devics: []\n"
        var errors: [GatewayConfigError] = []
        for bytes in [Array(text.utf8), Self.bom + Array(text.utf8)] {
            do { _ = try GatewayConfiguration(yaml: bytes) } catch { errors.append(error) }
        }
        #expect(errors.count == 2)
        #expect(errors.first?.description == "devics: unknown key; did you mean devices?")
        #expect(errors.first == errors.last, "\(errors)")
    }

    @Test(arguments: [[0xFF, 0xFE, 0x6D, 0x00], [0xFE, 0xFF, 0x00, 0x6D], [0xFF, 0xFE, 0x00, 0x00, 0x6D, 0x00, 0x00, 0x00]] as [[UInt8]])
    func otherByteOrderMarksAskForUTF8(_ bytes: [UInt8]) {
        do {
            _ = try GatewayConfiguration(yaml: bytes)
            Issue.record("loaded")
        } catch {
            #expect(error.message.contains("save the file as UTF-8"), "\(error)")
            #expect(error.mark == YAMLMark(line: 1, column: 1))
        }
    }
}
