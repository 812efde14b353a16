import MQTTClient
import Synchronization
import WaitTestSupport

/// Every message a test's subscriber gets, kept in order, and waits for one that matches:
/// woken by each arrival, bounded by a deadline (never a delay the test depends on).
public final class BrokerRecorder: Sendable {
    /// The subscriber itself (tests publish through it too).
    public let client: MQTTClient
    private let state = Mutex<(messages: [MQTTMessage], waiters: [Int: CheckedContinuation<Void, Never>], next: Int)>(([], [:], 0))

    /// Subscribes to `filter` on the broker at 127.0.0.1:`port`.
    public init(port: Int, filter: String, id: String = "gateway-test-observer") throws {
        client = try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:\(port)", clientID: id))
        client.start()
        try client.subscribe(filter, qos: .atLeastOnce)
        let messages = client.messages
        Task { [weak self] in
            for await element in messages {
                guard case .value(let message) = element else { continue }
                self?.add(message)
            }
        }
    }

    private func add(_ message: MQTTMessage) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.messages.append(message)
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Everything received so far, in order.
    public var messages: [MQTTMessage] { state.withLock { $0.messages } }

    /// The first message from index `start` on that `predicate` accepts, waiting up to `timeout`
    /// (by default ``hangGuard``: a guard against a hang, never a measure of time).
    public func first(after start: Int = 0, within timeout: Duration = hangGuard,
               where test: @escaping @Sendable (MQTTMessage) -> Bool) async -> MQTTMessage? {
        let predicate: @Sendable (MQTTMessage) -> Bool = test
        let deadline = ContinuousClock.now + timeout
        func found() -> MQTTMessage? { messages.dropFirst(start).first(where: predicate) }
        while ContinuousClock.now < deadline {
            if let found = found() { return found }
            let id = state.withLock { s -> Int in
                s.next += 1
                return s.next
            }
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                self?.wake(id)
            }
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { s -> Bool in
                    if s.messages.dropFirst(start).contains(where: predicate) { return true }
                    s.waiters[id] = waiter
                    return false
                }
                if ready { waiter.resume() }
            }
            timer.cancel()
        }
        return found()
    }

    private func wake(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
