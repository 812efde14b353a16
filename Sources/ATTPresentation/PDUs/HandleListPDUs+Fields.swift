import ATT

extension ReadMultipleRequest: PDUFieldsPresentable {}
extension ReadMultipleVariableRequest: PDUFieldsPresentable {}
