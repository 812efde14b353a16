@testable import MQTTClient

// The waits every test target shares; re-exported so that each file of the target has them.
@_exported import WaitTestSupport

/// The first element of `stream` that `predicate` accepts, or nil once `timeout` passes:
/// a guard against a hang, never a delay the test depends on (absence is shown by a later
/// element, never by this running out).
func first<Value: Sendable>(_ stream: MQTTStream<Value>, within timeout: Duration,
                            where predicate: @escaping @Sendable (MQTTStreamElement<Value>) -> Bool) async -> MQTTStreamElement<Value>? {
    await withTaskGroup(of: MQTTStreamElement<Value>?.self) { group in
        group.addTask {
            for await element in stream where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

/// Waits for the client's next `.connected`.
func connected(_ client: MQTTClient, within timeout: Duration = hangGuard) async -> Bool {
    await first(client.events, within: timeout) { if case .value(.connected) = $0 { return true } else { return false } } != nil
}

/// Waits for the SUBACK of `filter`.
func subscribed(_ client: MQTTClient, _ filter: String, within timeout: Duration = hangGuard) async -> Bool {
    await first(client.events, within: timeout) { element in
        if case .value(.subscribed(filter, _)) = element { return true } else { return false }
    } != nil
}

func client(port: Int, id: String, configure: (inout MQTTConfiguration) -> Void = { _ in }) throws -> MQTTClient {
    var configuration = try MQTTConfiguration(url: "mqtt://127.0.0.1:\(port)", clientID: id)
    configure(&configuration)
    let client = try MQTTClient(configuration: configuration)
    client.start()
    return client
}
