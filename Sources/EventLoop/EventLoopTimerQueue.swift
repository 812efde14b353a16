/// A min-heap of deadlines (monotonic nanoseconds) keyed by timer id.
///
/// Cancelled timers are dropped lazily when they reach the top; the heap is
/// compacted when stale entries outnumber live ones, so memory stays bounded
/// even when every command and every wait with a time-out arms and cancels a timer.
struct EventLoopTimerQueue<Action> {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: Action] = [:]

    var count: Int { actions.count }
    var isEmpty: Bool { actions.isEmpty }

    /// The earliest live deadline, if any.
    mutating func earliestDeadline() -> UInt64? {
        dropStaleTop()
        return heap.first?.deadline
    }

    mutating func insert(id: UInt64, deadline: UInt64, action: Action) {
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
    }

    @discardableResult
    mutating func remove(id: UInt64) -> Action? {
        let action = actions.removeValue(forKey: id)
        if heap.count > 64 && heap.count > 2 * actions.count { compact() }
        return action
    }

    /// Removes and returns every action whose deadline is at or before `now`,
    /// earliest first.
    mutating func popExpired(now: UInt64) -> [Action] {
        var due: [Action] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let action = actions.removeValue(forKey: top.id) { due.append(action) }
        }
        return due
    }

    private mutating func dropStaleTop() {
        while let top = heap.first, actions[top.id] == nil { popTop() }
    }

    private mutating func compact() {
        heap.removeAll { actions[$0.id] == nil }
        // Floyd's heap construction over what is left.
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
