import BumbleTestSupport
import Foundation
import Synchronization
import WaitTestSupport

/// One run of `Scripts/interop/gateway_lab.py`: an emulated controller for our host and
/// three Bumble peers (`hr`, `battery`, `control`) on one virtual link, for a gateway to
/// connect to. The gateway tests and `attune-bench`'s reconnect figure drive it: peers
/// vanish and return on command, and the lab reports every CCCD write, notification,
/// read and write it sees, stamped with CLOCK_MONOTONIC (``monotonicNow()``).
public final class GatewayBumbleLab: Sendable {
    /// One JSON line the lab wrote.
    public struct Event: Sendable, CustomStringConvertible {
        public let line: String
        private let fields: [String: JSONScalar]
        public var name: String { string("event") ?? "" }
        public var description: String { line }

        init(line: String) {
            self.line = line
            var fields: [String: JSONScalar] = [:]
            if let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] {
                for (key, value) in object {
                    if let text = value as? String { fields[key] = .text(text) }
                    else if let number = value as? NSNumber { fields[key] = .number(number.doubleValue) }
                    else if let map = value as? [String: String] { for (k, v) in map { fields["\(key).\(k)"] = .text(v) } }
                }
            }
            self.fields = fields
        }

        public func string(_ key: String) -> String? {
            if case .text(let text) = fields[key] { return text }
            return nil
        }
        public func double(_ key: String) -> Double? {
            if case .number(let number) = fields[key] { return number }
            return nil
        }
        public func int(_ key: String) -> Int? {
            guard let number = double(key), number.isFinite, abs(number) < 1e15 else { return nil }
            return Int(number)
        }
        /// The peer the event is about.
        public var peer: String? { string("peer") }
        /// CLOCK_MONOTONIC seconds when the lab wrote it.
        public var time: Double { double("t") ?? 0 }
    }

    enum JSONScalar: Sendable {
        case text(String)
        case number(Double)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let lab: BumbleLabProcess<Event>
    private let readyEvent = Mutex<Event?>(nil)

    /// CLOCK_MONOTONIC in seconds: the clock of the lab's `t` (Python's time.monotonic()).
    public static func monotonicNow() -> Double { labMonotonicNow() }

    private init(arguments: [String]) throws {
        lab = try BumbleLabProcess(script: "gateway_lab.py", arguments: arguments) { Event(line: $0) }
    }

    /// Starts a lab and waits for its `ready` line. Bumble labs run one at a time on the
    /// machine (a lock in the script), so the wait covers labs ahead of this one.
    public static func start(notifyInterval: Duration = .milliseconds(100), lifetime: Duration = hangGuard) async throws -> GatewayBumbleLab {
        let ms = Double(notifyInterval.components.seconds) * 1000 + Double(notifyInterval.components.attoseconds) / 1e15
        let lab = try GatewayBumbleLab(arguments: ["--notify-ms", String(ms),
                                                   "--lifetime", String(lifetime.components.seconds)])
        do {
            let ready = try await lab.waitFor("ready", within: .seconds(900))
            lab.readyEvent.withLock { $0 = ready }
        } catch {
            lab.stop()
            throw error
        }
        return lab
    }

    deinit { stop() }

    /// The TCP port of the controller for our host: `tcp:127.0.0.1:PORT`.
    public var port: Int { readyEvent.withLock { $0?.int("port") } ?? 0 }

    /// A peer's static random address, as the lab printed it.
    public func address(_ peer: String) -> String { readyEvent.withLock { $0?.string("peers.\(peer)") } ?? "" }

    /// Everything the lab wrote so far, in order.
    public var events: [Event] { lab.events }

    /// Sends one command line.
    public func send(_ command: String) {
        lab.send(command)
    }

    /// Runs `vanish PEER` or `return PEER` and waits for its result.
    @discardableResult
    public func run(_ command: String, within timeout: Duration = hangGuard) async throws -> Event {
        let word = String(command.split(separator: " ").first ?? "")
        let before = lab.eventCount
        send(command)
        let result = try await waitFor("result", after: before, within: timeout) { $0.string("command") == word }
        guard result.string("error") == nil else { throw Failure(description: "\(command): \(result.line)") }
        return result
    }

    /// The first event named `name` from index `start` on that `predicate` accepts.
    @discardableResult
    public func waitFor(_ name: String, after start: Int = 0, within timeout: Duration = hangGuard,
                        where predicate: (Event) -> Bool = { _ in true }) async throws -> Event {
        try await lab.waitFor("'\(name)'", within: timeout) { events in
            events.dropFirst(start).first { $0.name == name && predicate($0) }
        }
    }

    /// Ends the lab: quit, then SIGTERM, then SIGKILL, without holding up the caller.
    public func stop() {
        lab.stop()
    }
}
