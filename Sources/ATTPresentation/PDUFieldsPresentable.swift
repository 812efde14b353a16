import ATT

/// An ATT PDU body whose parameters can be shown as named fields, for JSON output
/// (`attune decode --json`, `attune pdu --json`, replay reports).
///
/// Every PDU type of ``ATTPDU`` conforms; the conformances live beside this protocol,
/// one file per PDU family, so the ATT codec carries no presentation.
public protocol PDUFieldsPresentable {
    /// Parameters as named fields, for JSON output.
    var fields: [(String, JSONValue)] { get }
}
