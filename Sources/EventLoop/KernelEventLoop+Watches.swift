extension KernelEventLoop {
    /// Serves a non-blocking descriptor with `handler`, called on the loop thread while
    /// the descriptor is ready for what is asked (level-triggered).
    ///
    /// Each call is one turn: the handler should do a bounded amount of work (one read of
    /// a bounded size, say) and return, even if more is ready; the loop calls it again on
    /// its next pass, after every other ready descriptor has had its turn and every due
    /// timer has fired. So one busy descriptor cannot hold up the others or the timers.
    public func watch(_ fd: Int32, reading: Bool, writing: Bool,
                      handler: @escaping @Sendable (Readiness) -> Void) throws(EventLoopError) -> Watch {
        let id = state.withLock { state -> UInt64 in
            let id = state.makeID()
            state.watches[id] = WatchEntry(fd: fd, reading: reading, writing: writing, added: false, handler: handler)
            return id
        }
        do {
            try state.withLock { state throws(EventLoopError) in try applyInterest(id, &state) }
        } catch {
            _ = state.withLock { $0.watches.removeValue(forKey: id) }
            throw error
        }
        return Watch(id: id)
    }

    /// Changes what a watched descriptor is served for; from any thread.
    public func setInterest(_ watch: Watch, reading: Bool, writing: Bool) {
        state.withLock { state in
            guard var entry = state.watches[watch.id], entry.reading != reading || entry.writing != writing else { return }
            entry.reading = reading
            entry.writing = writing
            state.watches[watch.id] = entry
            try? applyInterest(watch.id, &state)
        }
    }

    /// Stops serving a descriptor, before it is closed. Its handler is not called again
    /// once this returns, except by a pass already under way on the loop thread; a
    /// handler must therefore tolerate one late call.
    public func unwatch(_ watch: Watch) {
        state.withLock { state in
            guard let entry = state.watches.removeValue(forKey: watch.id), entry.added else { return }
            selector.remove(entry.fd)
        }
    }

    /// Brings the epoll set in line with a watch's interest. Called with the lock held.
    private func applyInterest(_ id: UInt64, _ state: inout State) throws(EventLoopError) {
        guard var entry = state.watches[id] else { return }
        let wanted = entry.reading || entry.writing
        switch (entry.added, wanted) {
        case (false, false):
            return
        case (false, true):
            try selector.add(entry.fd, token: id, reading: entry.reading, writing: entry.writing, edgeTriggered: false)
        case (true, true):
            try selector.modify(entry.fd, token: id, reading: entry.reading, writing: entry.writing, edgeTriggered: false)
        case (true, false):
            selector.remove(entry.fd)
        }
        entry.added = wanted
        state.watches[id] = entry
    }
}
