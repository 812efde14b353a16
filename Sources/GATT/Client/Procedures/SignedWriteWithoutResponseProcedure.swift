import ATT

/// Signed Write Without Response (Vol 3 Part G §4.9.2). On an encrypted link the
/// signature adds nothing and the spec has the client send a plain Write Command instead;
/// otherwise the command carries the sign counter and the CMAC of Vol 3 Part H §2.4.5.
struct SignedWriteWithoutResponseProcedure: ClientProcedure {
    let handle: AttributeHandle
    let value: [UInt8]

    func start(_ context: ProcedureContext) -> ProcedureStep {
        if context.linkEncrypted {
            return WriteWithoutResponseProcedure(handle: handle, value: value).start(context)
        }
        guard let key = context.configuration.signingKey else {
            return .fail(.invalidArgument("signed write needs a CSRK (configuration.signingKey)"))
        }
        guard value.count <= context.mtu - 15 else {
            return .fail(.invalidArgument("\(value.count) bytes exceed ATT_MTU − 15 = \(context.mtu - 15)"))
        }
        var message: [UInt8] = [ATTOpcode.signedWriteCommand.rawValue, UInt8(truncatingIfNeeded: handle.rawValue),
                                UInt8(truncatingIfNeeded: handle.rawValue >> 8)]
        message += value
        guard key.csrk.count == 16, let signature = try? ATTSignature.sign(pdu: message, csrk: key.csrk, signCounter: key.signCounter) else {
            return .fail(.invalidArgument("the CSRK must be 16 bytes"))
        }
        return .command(.signedWriteCommand(SignedWriteCommand(handle: handle, value: value[...], signature: signature[...])), .done)
    }

    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        .violation(.unsolicitedResponse, pdu, bytes)
    }
}
