/// A manager mid-pairing holds the TK, DHKey, MacKey and LTK as plain bytes; printing or
/// dumping it shows its role and step only, so logging a manager never leaks a key.
extension SecurityManager: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let state: String
        if isClosed {
            state = "closed"
        } else if let p = pairing {
            state = "pairing, \(p.stepName)" + (p.model.map { ", \($0)" } ?? "")
        } else {
            state = "idle"
        }
        return "SecurityManager(\(role), \(state), keys <redacted>)"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["role": role, "isPairing": isPairing, "isClosed": isClosed, "deadline": deadline as Any],
               displayStyle: .struct)
    }
}
