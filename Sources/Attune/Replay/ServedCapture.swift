import Replay
import Synchronization

/// A ``CapturedPeripheral`` being served: its manager, the pushes it paces and the
/// writes it answers. ``stop()`` ends it.
public final class ServedCapture: Sendable {
    /// The recording served.
    public let peripheral: CapturedPeripheral
    /// The manager serving it (its ``PeripheralManager/events`` report connections,
    /// subscriptions and written values).
    public let manager: PeripheralManager
    /// How much faster than captured the pushes go.
    public let speed: Double
    let clock: any Clock<Duration>
    let broadcast = Broadcast<ServedCaptureEvent>()
    /// The request and event loops, and each central's pacing, to cancel in ``stop()``.
    let tasks = Mutex<(loops: [Task<Void, Never>], pacing: [ConnectionID: [Task<Void, Never>]])>(([], [:]))

    init(peripheral: CapturedPeripheral, manager: PeripheralManager, speed: Double, clock: any Clock<Duration>) {
        self.peripheral = peripheral
        self.manager = manager
        self.speed = speed
        self.clock = clock
    }

    /// Pushes sent and writes answered, from now on.
    public var events: AsyncStream<ServedCaptureEvent> { broadcast.stream() }

    /// Starts answering requests and watching connections and subscriptions (before
    /// advertising, so that no central comes unseen).
    func begin() async {
        let events = manager.events
        let published = Dictionary(
            (await manager.services).flatMap(\.characteristics).map { ($0.valueHandle, $0) },
            uniquingKeysWith: { first, _ in first })
        let watch = Task { [self] in await watchCentrals(events, published) }
        let answer = Task { [self] in await answerRequests() }
        tasks.withLock { $0.loops += [watch, answer] }
    }

    /// Stops pacing and answering, stops advertising and disconnects every central.
    public func stop() async {
        let all = tasks.withLock { t -> [Task<Void, Never>] in
            defer { t = ([], [:]) }
            return t.loops + t.pacing.values.flatMap { $0 }
        }
        for task in all { task.cancel() }
        await manager.disconnectAll()
        broadcast.finish()
    }

    /// Each central replays the capture from its start: the pushes timed from the
    /// connection when it connects, those timed from the n-th subscription when it
    /// subscribes the n-th time.
    private func watchCentrals(_ events: AsyncStream<PeripheralManagerEvent>,
                               _ published: [AttributeHandle: PublishedCharacteristic]) async {
        var subscriptions: [ConnectionID: [AttributeHandle: Int]] = [:]
        for await event in events {
            switch event {
            case .centralConnected(let central):
                subscriptions[central.connection] = [:]
                pace(.connection, for: central, published)
            case let .subscriptionChanged(central, characteristic, configuration) where !configuration.isEmpty:
                let ordinal = subscriptions[central.connection]?[characteristic] ?? 0
                subscriptions[central.connection, default: [:]][characteristic] = ordinal + 1
                pace(.subscription(characteristic, ordinal: ordinal), for: central, published)
            case .centralDisconnected(let central, _):
                subscriptions[central.connection] = nil
                let ended = tasks.withLock { $0.pacing.removeValue(forKey: central.connection) } ?? []
                for task in ended { task.cancel() }
            default:
                break
            }
        }
    }

    private func pace(_ anchor: CapturedPush.Anchor, for central: Central,
                      _ published: [AttributeHandle: PublishedCharacteristic]) {
        let due = peripheral.pushes.filter { $0.anchor == anchor }
        guard !due.isEmpty else { return }
        let clock = self.clock, speed = self.speed
        let task = Task { [self] in await Self.send(due, to: central, from: clock, speed: speed, self, published) }
        tasks.withLock { $0.pacing[central.connection, default: []].append(task) }
    }

    /// Sends `pushes` to `central` at their offsets from now on `clock`, divided by
    /// `speed`; a value waits for room on the link rather than being dropped.
    private static func send<C: Clock<Duration>>(_ pushes: [CapturedPush], to central: Central, from clock: C, speed: Double,
                                       _ served: ServedCapture,
                                       _ published: [AttributeHandle: PublishedCharacteristic]) async {
        let start = clock.now
        for push in pushes {
            do { try await clock.sleep(until: start.advanced(by: push.offset / speed), tolerance: nil) } catch { return }
            guard let characteristic = published[push.handle],
                  await served.manager.subscribedCentrals(for: characteristic).contains(central) else { continue }
            while !(await served.manager.updateValue(push.value, for: characteristic, onSubscribedCentrals: [central])) {
                if Task.isCancelled { return }
                await served.manager.readyToUpdateSubscribers()
            }
            served.broadcast.yield(.pushed(central, handle: push.handle, value: push.value,
                                           isIndication: push.isIndication, record: push.record))
        }
    }

    /// Reads and writes of the characteristics whose writes the captured server refused:
    /// reads get the current value, writes the captured answer.
    private func answerRequests() async {
        var values: [AttributeHandle: [UInt8]] = [:]
        for a in peripheral.database.attributes where a.kind == .dynamic { values[a.handle] = a.value }
        for await request in manager.requests {
            switch request.kind {
            case .read:
                let value = values[request.handle] ?? []
                let result: Result<[UInt8], ATTErrorCode> = request.offset <= value.count
                    ? .success(Array(value[request.offset...])) : .failure(.invalidOffset)
                await manager.respond(to: request, withResult: result)
            case .write(let expectsResponse):
                let error = peripheral.script.answer(toWrite: request.writes) ?? Self.apply(request.writes, to: &values)
                if expectsResponse {
                    await manager.respond(to: request, withResult: error.map { .failure($0) } ?? .success([]))
                }
                broadcast.yield(.writeAnswered(request.central, handle: request.handle,
                                               value: request.writes.flatMap(\.value), error: error))
            }
        }
    }

    /// Applies writes that stand or fall together; Invalid Offset past a value's end,
    /// Invalid Attribute Value Length past 512 bytes.
    static func apply(_ writes: [ApplicationWrite], to values: inout [AttributeHandle: [UInt8]]) -> ATTErrorCode? {
        var updated = values
        for w in writes {
            let current = updated[w.handle] ?? []
            guard w.offset <= current.count else { return .invalidOffset }
            let value = Array(current.prefix(w.offset)) + w.value
            guard value.count <= 512 else { return .invalidAttributeValueLength }
            updated[w.handle] = value
        }
        values = updated
        return nil
    }
}
