import ATT
import HCI
import SMP

extension UserlandSecurity {
    /// The user's answer to request `id` of link `handle`, from its ``PairingAgent``. An
    /// answer to a request that expired (the pairing failed, timed out, or the link went)
    /// or was answered already is dropped.
    mutating func answer(_ handle: UInt16, request id: UInt64, with answer: SecurityManagerAnswer, host: inout HCIHost,
                         out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) {
        guard prompts.take(id, on: handle), let info = host.connection(handle), var manager = managers[handle] else { return }
        output.removeAll()
        manager.answer(answer, at: now, into: &output)
        managers[handle] = manager
        carryOut(handle, info, host: &host, out: &out, nextID: &nextID, at: now)
    }

    /// How the link is secured now, for the ATT server's permission checks.
    func linkSecurity(_ handle: UInt16) -> LinkSecurity { prompts.linkSecurity(handle) }
}
