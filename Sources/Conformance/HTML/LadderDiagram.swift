import ATT
import BluetoothCore

/// One test's exchange as a ladder diagram: a tester lane and an IUT lane, and between
/// them one arrow per PDU in the order they went, each labelled with the PDU decoded by
/// our ATT codec and its raw hex. Drawn with CSS alone (``ConformanceHTMLStyle``).
struct LadderDiagram {
    var exchange: [ExchangedPDU]
    /// The index of the PDU the verdict was decided on, marked as the failing step.
    var failingStep: Int?

    /// The step a fail was decided on. A test's next step is a function of what it has
    /// exchanged, run each time a PDU arrives or a wait ends, so its verdict comes on
    /// its last PDU: the IUT's bad answer, or the tester's request left unanswered.
    static func failingStep(of report: ConformanceTestReport) -> Int? {
        report.verdict.isFailure && !report.exchange.isEmpty ? report.exchange.count - 1 : nil
    }

    var html: String {
        guard !exchange.isEmpty else { return "<p class=\"no-exchange\">No PDUs were exchanged for this verdict.</p>\n" }
        var out = "<div class=\"ladder\">\n<div class=\"lanes\"><span>tester</span><span>IUT</span></div>\n<ol>\n"
        for (index, pdu) in exchange.enumerated() {
            let failing = index == failingStep
            let way = pdu.direction == .testerToIUT ? "to-iut" : "to-tester"
            let arrow = pdu.direction == .testerToIUT ? "tester &#8594; IUT" : "IUT &#8594; tester"
            out += "<li class=\"step \(way)\(failing ? " failing" : "")\"\(failing ? " id=\"\(failingAnchor)\"" : "")>"
            out += "<span class=\"dir\">\(index + 1). \(arrow)</span>"
            out += "<div class=\"arrow\"></div>"
            out += "<div class=\"pdu\">\(Self.decoded(pdu.bytes))</div>"
            out += "<code class=\"hex\">\(MarkupEscaping.escape(pdu.hex.isEmpty ? "(empty)" : pdu.hex))</code>"
            if failing { out += "<strong class=\"mark\">&#10007; failing step</strong>" }
            out += "</li>\n"
        }
        return out + "</ol>\n</div>\n"
    }

    /// Set by the page per test, so each failing step has its own anchor.
    var failingAnchor = "failing-step"

    /// The PDU as our codec reads it, escaped: its name in bold, then its parameters;
    /// a PDU the codec rejects says why.
    static func decoded(_ bytes: [UInt8]) -> String {
        switch PDUCoding.decode(bytes) {
        case .success(let pdu):
            let name = pdu.opcode.name
            let text = pdu.description
            let params = text.hasPrefix(name) ? String(text.dropFirst(name.count)) : " " + text
            return "<b>\(MarkupEscaping.escape(name))</b>\(MarkupEscaping.escape(params))"
        case .failure(let error):
            let name = bytes.first.map { ATTOpcode($0).name } ?? "empty PDU"
            return "<b>\(MarkupEscaping.escape(name))</b> <em class=\"undecodable\">undecodable: \(MarkupEscaping.escape("\(error)"))</em>"
        }
    }
}
