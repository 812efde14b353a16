import ATT

extension WriteResponse: PDUFieldsPresentable {}
extension ExecuteWriteResponse: PDUFieldsPresentable {}
extension HandleValueConfirmation: PDUFieldsPresentable {}
