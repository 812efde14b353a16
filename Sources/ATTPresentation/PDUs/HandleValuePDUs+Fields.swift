import ATT

extension WriteRequest: PDUFieldsPresentable {}
extension WriteCommand: PDUFieldsPresentable {}
extension HandleValueNotification: PDUFieldsPresentable {}
extension HandleValueIndication: PDUFieldsPresentable {}
