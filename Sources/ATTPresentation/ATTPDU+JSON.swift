import ATT

extension ATTPDU {
    /// The PDU as a JSON object: opcode, name, then the parameters.
    public var json: JSONValue {
        .object([("opcode", .int(Int(opcode.rawValue))), ("name", .string(opcode.name))] + bodyFields)
    }

    /// The body's parameters as named fields.
    private var bodyFields: [(String, JSONValue)] {
        switch self {
        case .errorResponse(let p): p.fields
        case .exchangeMTURequest(let p): p.fields
        case .exchangeMTUResponse(let p): p.fields
        case .findInformationRequest(let p): p.fields
        case .findInformationResponse(let p): p.fields
        case .findByTypeValueRequest(let p): p.fields
        case .findByTypeValueResponse(let p): p.fields
        case .readByTypeRequest(let p): p.fields
        case .readByTypeResponse(let p): p.fields
        case .readRequest(let p): p.fields
        case .readResponse(let p): p.fields
        case .readBlobRequest(let p): p.fields
        case .readBlobResponse(let p): p.fields
        case .readMultipleRequest(let p): p.fields
        case .readMultipleResponse(let p): p.fields
        case .readByGroupTypeRequest(let p): p.fields
        case .readByGroupTypeResponse(let p): p.fields
        case .writeRequest(let p): p.fields
        case .writeResponse(let p): p.fields
        case .prepareWriteRequest(let p): p.fields
        case .prepareWriteResponse(let p): p.fields
        case .executeWriteRequest(let p): p.fields
        case .executeWriteResponse(let p): p.fields
        case .handleValueNotification(let p): p.fields
        case .handleValueIndication(let p): p.fields
        case .handleValueConfirmation(let p): p.fields
        case .readMultipleVariableRequest(let p): p.fields
        case .readMultipleVariableResponse(let p): p.fields
        case .multipleHandleValueNotification(let p): p.fields
        case .writeCommand(let p): p.fields
        case .signedWriteCommand(let p): p.fields
        }
    }
}
