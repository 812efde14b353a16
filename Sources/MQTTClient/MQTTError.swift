/// What went wrong in ``MQTTClient``, with the context a log line needs.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broker URL cannot be used: `reason` says why.
    case invalidURL(String, reason: String)
    /// A topic name or filter MQTT does not allow (empty, wildcards in a name, bad UTF-8...).
    case invalidTopic(String)
    /// A payload, correlation data or property larger than MQTT can carry.
    case tooLarge(what: String, size: Int, limit: Int)
    /// libmosquitto refused a call; `code` is its `mosq_err_t`.
    case library(operation: String, code: Int32, message: String)
    /// The client was closed.
    case closed

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "MQTT URL \(url): \(reason)"
        case .invalidTopic(let topic): return "not a valid MQTT topic: \(topic)"
        case .tooLarge(let what, let size, let limit): return "\(what) of \(size) bytes exceeds \(limit)"
        case .library(let operation, let code, let message): return "\(operation): \(message) (\(code))"
        case .closed: return "the MQTT client is closed"
        }
    }
}
