import BluetoothCore
import Dispatch
import Synchronization

/// The bounded hand-off between a transport's reader and the one task that owns a link:
/// the only queue on the path from the wire to the engines.
///
/// The reader ``push(_:)``es what it read and stops reading while ``hasRoom`` is false
/// (``waitForRoom()`` from a task, ``waitForRoom(timeout:)`` from an I/O thread,
/// ``onRoom(_:)`` from an event loop), so a
/// consumer that falls behind leaves the data where the transport's own flow control
/// holds it: the kernel socket buffer, the controller, the sending peer. The owner
/// ``take()``s everything queued in one batch, so one wake-up carries many PDUs.
///
/// Its continuations are unsafe ones (no checking box to allocate per wake-up): each is
/// taken out under the lock before it is resumed, so none is resumed twice.
///
/// A push never fails while the inbox is open: a reader may already hold more than the
/// room left (one `read` can carry several packets), and dropping it would lose data
/// silently. The bound is therefore ``capacity`` plus what one read can carry.
///
/// A reader that must not pause for one link (the userland host reads every link of an
/// adapter from one stream) uses ``pushOrCount(_:limit:)`` instead: past its limit an
/// element is dropped and counted, and the owner takes the count with
/// ``takeLostCount()``.
///
/// The queue itself is BluetoothCore's ``BoundedBuffer`` (pausing the producer, or
/// dropping the newest for ``pushOrCount(_:limit:)``); this class adds the lock and the
/// three ways a reader waits for room.
public final class LinkInbox<Element: Sendable>: Sendable {
    /// The owner's wake-up: resumed with the next batch.
    public typealias Taker = UnsafeContinuation<[Element], Never>

    // Inlinable, so the generic code is specialized in the module that owns the link
    // (no runtime metadata look-ups on the per-PDU path).
    @usableFromInline
    struct State {
        @usableFromInline var buffer: BoundedBuffer<Element, Taker, Never>
        /// The reader task waiting for room; a link has one writer, so more wait rarely,
        /// and only those take an array.
        @usableFromInline var roomWaiter: UnsafeContinuation<Void, Never>?
        @usableFromInline var moreRoomWaiters: [UnsafeContinuation<Void, Never>] = []
        @usableFromInline var threadWaiter: DispatchSemaphore?
        /// Run once when room appears, for a reader on an event loop.
        @usableFromInline var roomCallback: (@Sendable () -> Void)?

        @usableFromInline init(capacity: Int) { buffer = BoundedBuffer(capacity: capacity) }

        /// Every reader that waits for room, taken out to be released outside the lock.
        @inlinable
        mutating func takeRoomWaiters() -> RoomWaiters {
            guard roomWaiter != nil || threadWaiter != nil || roomCallback != nil else { return .none }
            defer {
                roomWaiter = nil
                if !moreRoomWaiters.isEmpty { moreRoomWaiters = [] }
                threadWaiter = nil
                roomCallback = nil
            }
            return RoomWaiters(task: roomWaiter, moreTasks: moreRoomWaiters, thread: threadWaiter, callback: roomCallback)
        }

        @inlinable
        mutating func addRoomWaiter(_ waiter: UnsafeContinuation<Void, Never>) {
            if roomWaiter == nil { roomWaiter = waiter } else { moreRoomWaiters.append(waiter) }
        }
    }

    @usableFromInline
    struct RoomWaiters {
        @usableFromInline var task: UnsafeContinuation<Void, Never>?
        @usableFromInline var moreTasks: [UnsafeContinuation<Void, Never>]
        @usableFromInline var thread: DispatchSemaphore?
        @usableFromInline var callback: (@Sendable () -> Void)?

        @inlinable init(task: UnsafeContinuation<Void, Never>?, moreTasks: [UnsafeContinuation<Void, Never>],
                        thread: DispatchSemaphore?, callback: (@Sendable () -> Void)?) {
            self.task = task
            self.moreTasks = moreTasks
            self.thread = thread
            self.callback = callback
        }

        @inlinable static var none: RoomWaiters { RoomWaiters(task: nil, moreTasks: [], thread: nil, callback: nil) }

        @inlinable func release() {
            task?.resume()
            for w in moreTasks { w.resume() }
            thread?.signal()
            callback?()
        }
    }

    /// How many elements may wait before the reader must pause.
    public let capacity: Int
    @usableFromInline let state: Mutex<State>

    public init(capacity: Int) {
        precondition(capacity > 0, "a link inbox needs room for at least one element")
        self.capacity = capacity
        state = Mutex(State(capacity: capacity))
    }

    /// Queues one element. Returns whether there is still room, that is whether the
    /// reader may read on. After ``finish(_:)`` the element is discarded and this returns
    /// false: the link is gone, and its owner has seen the last element.
    @discardableResult @inlinable
    public func push(_ element: Element) -> Bool {
        let (taker, batch, room) = state.withLock { s -> (Taker?, [Element], Bool) in
            switch s.buffer.push(element, whenFull: .pauseProducer) {
            case .resume(let taker, let batch): (taker, batch, true)
            case .queued(let hasRoom): (nil, [], hasRoom)
            case .queuedDroppingOldest, .dropped, .refused: (nil, [], true)  // never: the inbox does not stall
            case .closed: (nil, [], false)
            }
        }
        taker?.resume(returning: batch)
        return room
    }

    /// Queues one element unless `limit` elements already wait; then drops it and counts
    /// it, for ``takeLostCount()``. Returns whether it was queued. For a reader that must
    /// never pause for this inbox (the userland host reads every link of an adapter from
    /// one stream): the bound holds without back-pressure, and nothing is lost silently.
    @discardableResult
    public func pushOrCount(_ element: Element, limit: Int) -> Bool {
        let (taker, batch, queued) = state.withLock { s -> (Taker?, [Element], Bool) in
            switch s.buffer.push(element, limit: limit, whenFull: .dropNewest) {
            case .resume(let taker, let batch): (taker, batch, true)
            case .queued, .queuedDroppingOldest: (nil, [], true)
            case .dropped, .refused, .closed: (nil, [], false)
            }
        }
        taker?.resume(returning: batch)
        return queued
    }

    /// How many elements ``pushOrCount(_:limit:)`` dropped since the last call.
    public func takeLostCount() -> Int {
        state.withLock { $0.buffer.takeLost() }
    }

    /// Queues the last element (the link's end) and closes the inbox: later pushes are
    /// discarded, and ``take()`` returns an empty batch once this one was taken.
    public func finish(_ last: Element) {
        let (resumed, waiters) = state.withLock { s -> ((Taker, [Element])?, RoomWaiters) in
            guard s.buffer.isOpen else { return (nil, .none) }
            return (s.buffer.finish(last: last), s.takeRoomWaiters())
        }
        if case let (taker, batch)? = resumed { taker.resume(returning: batch) }
        waiters.release()
    }

    /// Everything queued, oldest first, waiting until there is at least one element.
    /// Empty only once the inbox is finished and drained. For exactly one owner.
    @inlinable
    nonisolated(nonsending) public func take() async -> [Element] {
        await withUnsafeContinuation { (taker: Taker) in
            let (batch, waiters) = state.withLock { s -> ([Element]?, RoomWaiters) in
                // Taking makes room (a waiting owner means an empty queue): release a
                // reader that waited for it.
                switch s.buffer.take(orWait: taker) {
                case .elements(let batch): (batch, s.takeRoomWaiters())
                case .waiting: (nil, s.takeRoomWaiters())
                case .end: ([], s.takeRoomWaiters())
                }
            }
            waiters.release()
            if let batch { taker.resume(returning: batch) }
        }
    }

    /// Takes back the storage of a batch ``take()`` returned, once its owner is done
    /// with it: emptied here, and kept for a later batch, so a steady stream of batches
    /// allocates no arrays. `batch` is left empty.
    @inlinable
    public func recycle(_ batch: inout [Element]) {
        // Emptied outside the lock: the elements' release may run deinitializers.
        batch.removeAll(keepingCapacity: true)
        state.withLock { $0.buffer.recycle(&batch) }
    }

    /// Whether the reader may read on.
    @inlinable
    public var hasRoom: Bool { state.withLock { $0.buffer.isOpen && $0.buffer.count < capacity } }

    /// The number of elements waiting.
    public var count: Int { state.withLock { $0.buffer.count } }

    /// Returns once there is room again, or the inbox is finished.
    nonisolated(nonsending) public func waitForRoom() async {
        await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.buffer.producerMayGoOn { return true }
                s.addRoomWaiter(waiter)
                return false
            }
            if ready { waiter.resume() }
        }
    }

    /// Keeps `body` to run once, when there is room again or the inbox finishes; returns
    /// false, keeping nothing, when there is room already. Replaces a callback kept
    /// earlier and not yet run. For readers on an event loop, which must not block: `body`
    /// typically re-arms reading. It runs on the thread that made the room, outside the
    /// inbox's lock; the caller's own locks may be held when this returns false, never
    /// when `body` runs.
    public func onRoom(_ body: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { s -> Bool in
            if s.buffer.producerMayGoOn { return false }
            s.roomCallback = body
            return true
        }
    }

    /// Blocks the calling thread until there is room, the inbox is finished, or
    /// `timeout` passed; returns whether there is room (or the inbox finished). For
    /// transports whose reader is a thread of its own.
    public func waitForRoom(timeout: DispatchTime) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let ready = state.withLock { s -> Bool in
            if s.buffer.producerMayGoOn { return true }
            s.threadWaiter = semaphore
            return false
        }
        if ready { return true }
        _ = semaphore.wait(timeout: timeout)
        return state.withLock { s in
            if s.threadWaiter === semaphore { s.threadWaiter = nil }
            return s.buffer.producerMayGoOn
        }
    }
}
