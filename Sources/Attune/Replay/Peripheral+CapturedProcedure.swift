import Replay

extension Peripheral {
    /// Runs a procedure a captured client ran, as captured (its handles, ranges and
    /// values), on this connected peripheral; nil when our client has no command for it.
    /// What `attune replay --as client --against` asks of the live device.
    public func perform(_ run: CapturedProcedureRun) async -> Result<GATTClientResponse, AttuneError>? {
        guard let command = run.command else { return nil }
        do {
            return .success(try await request(command))
        } catch {
            return .failure(error)
        }
    }
}
