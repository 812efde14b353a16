import ATT

extension ReadResponse: PDUFieldsPresentable {}
extension ReadBlobResponse: PDUFieldsPresentable {}
extension ReadMultipleResponse: PDUFieldsPresentable {}
