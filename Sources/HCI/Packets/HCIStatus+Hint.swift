extension HCIStatus {
    /// What usually causes this status in `context`, and what to do about it; nil where
    /// the cause is not known well enough to say.
    public func hint(_ context: HCIStatusContext) -> String? {
        switch context {
        case .command(let opcode) where Self.connectionCommands.contains(opcode):
            return hint(.connectionAttempt)
        case .command(let opcode):
            return commandHint(opcode) ?? anywhereHint
        case .connectionAttempt:
            return connectionAttemptHint ?? anywhereHint
        case .disconnection:
            return disconnectionHint ?? anywhereHint
        }
    }

    /// LE Create Connection and LE Extended Create Connection: their failures are those
    /// of a connection attempt.
    static let connectionCommands: Set<HCIOpcode> = [LECreateConnection.opcode, LEExtendedCreateConnection.opcode]

    private var connectionAttemptHint: String? {
        switch rawValue {
        case 0x0B: "this controller already has a link to that peripheral; use it, or disconnect it first"
        case 0x0C: "a connection attempt is already pending on this controller; wait for it to finish or cancel it "
            + "(another process, such as bluetoothd, may be connecting)"
        case 0x0D: "the controller has no resources for another connection; disconnect another device first"
        case 0x12: "the controller rejected the connection parameters (address type, intervals or supervision "
            + "timeout); report it with a --snoop capture"
        case 0x3B: "the connection parameters are not acceptable to the controller or the peripheral"
        case 0x3E: "the peripheral did not answer; it may be out of range or no longer advertising"
        case 0x08: "the peripheral stopped answering as the link came up; it may be out of range"
        default: nil
        }
    }

    private var disconnectionHint: String? {
        switch rawValue {
        case 0x08: "the peripheral stopped answering within the supervision timeout; it may be out of range, "
            + "powered off or reset"
        case 0x13: "the peripheral closed the connection"
        case 0x14: "the peripheral closed the connection because it ran low on resources"
        case 0x15: "the peripheral is powering off"
        case 0x16: "this host closed the connection"
        case 0x22: "the peripheral stopped answering a link-layer procedure; it may be out of range"
        case 0x3B: "the peripheral refused the connection parameters it was offered"
        case 0x3D: "the encrypted link failed its integrity check; the peripheral's keys may not match ours, "
            + "so remove the bond and pair again"
        case 0x3E: "the link never got going; the peripheral may be out of range"
        default: nil
        }
    }

    private func commandHint(_ opcode: HCIOpcode) -> String? {
        switch (rawValue, opcode) {
        case (0x0C, LESetScanEnable.opcode), (0x0C, LESetExtendedScanEnable.opcode):
            "the controller cannot change scanning now; another process (such as bluetoothd) may be scanning on it"
        case (0x0C, LESetAdvertisingEnable.opcode), (0x0C, LESetExtendedAdvertisingEnable.opcode):
            "the controller cannot change advertising now; another process may be advertising on it"
        case (0x0C, LESetScanParameters.opcode), (0x0C, LESetExtendedScanParameters.opcode):
            "scan parameters cannot change while a scan is running"
        case (0x0C, LESetAdvertisingParameters.opcode), (0x0C, LESetExtendedAdvertisingParameters.opcode):
            "advertising parameters cannot change while advertising"
        case (0x0C, _): "the controller does not allow this command in its current state"
        case (0x12, _): "the controller rejected the command's parameters; report it with a --snoop capture"
        case (0x02, Disconnect.opcode): "the connection is already gone"
        default: nil
        }
    }

    /// Causes that do not depend on where the code came from.
    private var anywhereHint: String? {
        switch rawValue {
        case 0x01: "the controller does not implement this command"
        case 0x03: "the controller reported a hardware failure; unplug and replug it, or reset it"
        case 0x05, 0x06: "the bond's keys do not match the peripheral's; remove the bond on both sides and pair again"
        case 0x07: "the controller is out of memory; disconnect other devices or stop scanning or advertising"
        case 0x09: "the controller holds as many connections as it can; disconnect another device first"
        case 0x11: "the controller does not support this feature or parameter value"
        case 0x1A: "the peripheral does not support a feature this procedure needs"
        case 0x3A: "the controller is busy; try again"
        default: nil
        }
    }
}
