import GATT

extension PeerIdentity {
    /// A file name made of the identity: letters, digits and '-' only.
    var cacheFileName: String {
        rawValue.map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined() + ".json"
    }
}
