/// The HTML report's whole style sheet, inlined into the page: the page fetches
/// nothing (no fonts, images or `url()`), and draws its ladder diagrams with CSS alone,
/// so it needs no JavaScript.
enum ConformanceHTMLStyle {
    static let css = """
        body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5rem 2rem; color: #1b1b1b; background: #fff; }
        h1 { font-size: 1.4rem; margin: 0 0 .3rem; }
        code, .hex { font-family: ui-monospace, monospace; }
        .totals { font-weight: bold; margin: .2rem 0 1rem; }
        table.summary { border-collapse: collapse; margin-bottom: 1.5rem; }
        table.summary th, table.summary td { border: 1px solid #bbb; padding: .25rem .7rem; text-align: right; }
        table.summary th:first-child { text-align: left; }
        table.summary thead th, table.summary tfoot th, table.summary tfoot td { background: #eee; font-weight: bold; }
        p.failed { margin: -.8rem 0 1.5rem; line-height: 1.7; } p.failed a { color: #b00020; font-family: ui-monospace, monospace; }
        .v-pass { color: #17692c; } .v-fail { color: #b00020; }
        .v-inconclusive { color: #8a5a00; } .v-not_applicable { color: #555; }
        details.test { border: 1px solid #ccc; border-left: 6px solid #999; border-radius: 4px; margin: .4rem 0; padding: .3rem .8rem; }
        details.test.verdict-pass { border-left-color: #2e9e4f; }
        details.test.verdict-fail { border-left-color: #d0021b; background: #fff6f6; }
        details.test.verdict-inconclusive { border-left-color: #e0a000; }
        details.test.verdict-not_applicable { border-left-color: #999; }
        details.test > summary { cursor: pointer; }
        .badge { display: inline-block; min-width: 9.5rem; font-weight: bold; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .6rem 0; }
        dt { font-weight: bold; } dd { margin: 0; white-space: pre-wrap; }
        .ladder { margin: .6rem 0 .4rem; max-width: 60rem; }
        .lanes { display: flex; justify-content: space-between; font-weight: bold; }
        .lanes span { width: 6rem; text-align: center; background: #333; color: #fff; border-radius: 3px; }
        .ladder ol { list-style: none; margin: 0 3rem; padding: .3rem 0; border-left: 3px solid #333; border-right: 3px solid #333; }
        .step { padding: .25rem 0 .4rem; }
        .step .dir { display: block; font-size: .8rem; color: #555; padding: 0 .8rem; }
        .step.to-tester .dir, .step.to-tester .pdu, .step.to-tester .hex { text-align: right; }
        .arrow { position: relative; border-top: 2px solid #1f5fbf; margin: .15rem 0; }
        .to-tester .arrow { border-top-color: #2e7d32; }
        .to-iut .arrow::after, .to-tester .arrow::after {
            content: ""; position: absolute; top: -7px; border-top: 6px solid transparent; border-bottom: 6px solid transparent;
        }
        .to-iut .arrow::after { right: 0; border-left: 12px solid #1f5fbf; }
        .to-tester .arrow::after { left: 0; border-right: 12px solid #2e7d32; }
        .pdu { padding: 0 .8rem; }
        .hex { display: block; padding: 0 .8rem; font-size: .8rem; color: #444; word-break: break-all; }
        .step.failing { background: #ffd9dc; outline: 2px solid #d0021b; }
        .step.failing .arrow { border-top-color: #d0021b; }
        .step.failing .arrow::after { border-left-color: #d0021b; border-right-color: #d0021b; }
        .to-iut .arrow::after { border-right: 0; } .to-tester .arrow::after { border-left: 0; }
        .mark { display: block; color: #b00020; padding: 0 .8rem; }
        .step.to-tester .mark { text-align: right; }
        .undecodable { color: #b00020; }
        .no-exchange { color: #555; font-style: italic; }
        """
}
