/// The steps of the host's initialisation sequence, in order. Each waits for the
/// previous one's Command Complete, because later steps depend on what earlier ones learnt.
enum InitializationStep: Hashable, Sendable {
    case reset
    case readLocalSupportedCommands
    case readLocalSupportedFeatures
    case setEventMask
    case leSetEventMask
    case leReadLocalSupportedFeatures
    case leReadBufferSize
    case leReadBufferSizeV2
    /// Only when LE Read Buffer Size reports shared buffers (length zero).
    case readBufferSize
    case readBDADDR
    case leSetRandomAddress
}
