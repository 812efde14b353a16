import Dispatch
import Synchronization

/// Packets on their way to the controller, written by a thread of their own.
///
/// The host decides what to send under its lock, but a write can block (a peer that is
/// slow to read); if it blocked under that lock, or on the reading thread, a peer that is
/// itself blocked writing to us would never be read: both sides would wait for ever. So
/// the host only queues here, in order, and this writer does the blocking. The queue is
/// bounded by flow control: the host never has more commands or ACL packets outstanding
/// than the controller allows.
final class H4Outbox: Sendable {
    private struct State {
        var packets: [[UInt8]] = []
        var head = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    /// Queues one packet; packets leave in the order queued.
    func enqueue(_ packet: [UInt8]) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.packets.append(packet)
            return true
        }
        if accepted { available.signal() }
    }

    /// Stops the writer once everything queued so far is written (or the stream failed).
    func close() {
        state.withLock { $0.closed = true }
        available.signal()
    }

    /// Runs the writer until ``close()``; `write` returns false when the stream failed,
    /// which drops the rest.
    func run(_ write: ([UInt8]) -> Bool) {
        var healthy = true
        while true {
            available.wait()
            let next = state.withLock { state -> [UInt8]?? in
                if state.head < state.packets.count {
                    defer {
                        state.head += 1
                        // Compact now and then so the array does not keep written packets.
                        if state.head >= 64 && state.head * 2 >= state.packets.count {
                            state.packets.removeFirst(state.head)
                            state.head = 0
                        }
                    }
                    return .some(state.packets[state.head])
                }
                return state.closed ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some(nil): continue
            case .some(let packet?):
                if healthy { healthy = write(packet) }
            }
        }
    }
}
