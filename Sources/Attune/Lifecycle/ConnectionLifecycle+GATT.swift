extension ConnectionLifecycle {
    /// The MTU exchange finished (or failed, then pass 23).
    ///
    /// A cache with a Database Hash is validated by the same discovery request that
    /// would replace it (``LifecycleAction/discoverDatabase``): the client engine reads
    /// the server's hash first and answers with the cache itself when it matches. The
    /// lifecycle keeps no validation logic of its own.
    public mutating func mtuExchanged(_ mtu: Int, at now: MonotonicTime) -> [LifecycleAction] {
        guard case .connected(var s) = state, s.step == .exchangingMTU else { return [] }
        self.mtu = max(23, mtu)
        if let cache, cache.databaseHash != nil {
            s.step = .validatingCache
            state = .connected(s)
            return [.deliver(.phase(.validatingCache)), .discoverDatabase]
        }
        if configuration.discoversOnConnect || cache != nil || !subscriptions.isEmpty {
            return discover(s)
        }
        return resubscribe(s, subscriptions)
    }

    /// Discovery of the whole database finished; `cacheHit` when the engine confirmed the
    /// cached database through its hash and read nothing else.
    public mutating func discoveryCompleted(_ services: [Service], databaseHash: [UInt8]?, cacheHit: Bool = false,
                                            at now: MonotonicTime) -> [LifecycleAction] {
        guard case .connected(let s) = state, s.step == .discovering || s.step == .validatingCache else { return [] }
        if s.step == .validatingCache {
            // A hit keeps the cache as it is: nothing to save.
            if cacheHit, cache != nil { return [.deliver(.cacheValidated(hit: true))] + resubscribe(s, subscriptions) }
            return [.deliver(.cacheValidated(hit: false))] + discovered(services, databaseHash: databaseHash, s)
        }
        return discovered(services, databaseHash: databaseHash, s)
    }

    private mutating func discovered(_ services: [Service], databaseHash: [UInt8]?, _ s: ConnectedState) -> [LifecycleAction] {
        let fresh = GATTCache(services: services, databaseHash: databaseHash)
        cache = fresh
        var actions: [LifecycleAction] = [.saveCache(fresh)]
        // Handles may have moved: find each subscription again by its UUIDs, and end the
        // ones whose characteristic is gone instead of letting them fade away.
        var kept: [Subscription] = []
        for subscription in subscriptions {
            if let moved = subscription.relocated(in: services) {
                kept.append(moved)
            } else {
                actions.append(.deliver(.subscriptionEnded(subscription, .attributeNotFound(
                    "characteristic \(subscription.characteristicUUID) of service \(subscription.serviceUUID)"))))
            }
        }
        if kept != subscriptions {
            subscriptions = kept
            actions.append(.saveSubscriptions(kept))
        }
        return actions + resubscribe(s, kept)
    }

    /// Discovery failed without the link dropping (the peer answered with errors). The
    /// connection goes on without a cache.
    public mutating func discoveryFailed(at now: MonotonicTime) -> [LifecycleAction] {
        guard case .connected(let s) = state, s.step == .discovering || s.step == .validatingCache else { return [] }
        cache = nil
        return resubscribe(s, subscriptions)
    }

    /// One CCCD write of ``LifecycleAction/resubscribe(_:)`` finished.
    public mutating func resubscribeCompleted(_ subscription: Subscription, error: AttuneError?,
                                              at now: MonotonicTime) -> [LifecycleAction] {
        guard case .connected(var s) = state, s.step == .resubscribing,
              let index = s.pendingResubscriptions.firstIndex(of: subscription) else { return [] }
        s.pendingResubscriptions.remove(at: index)
        var actions: [LifecycleAction]
        if let error {
            subscriptions.removeAll { $0 == subscription }
            actions = [.deliver(.subscriptionEnded(subscription, error)), .saveSubscriptions(subscriptions)]
        } else {
            actions = [.deliver(.subscriptionRestored(subscription))]
        }
        if s.pendingResubscriptions.isEmpty {
            actions += becomeReady(s)
        } else {
            state = .connected(s)
        }
        return actions
    }

    private mutating func discover(_ s: ConnectedState) -> [LifecycleAction] {
        var s = s
        s.step = .discovering
        state = .connected(s)
        return [.deliver(.phase(.discovering)), .discoverDatabase]
    }

    private mutating func resubscribe(_ s: ConnectedState, _ list: [Subscription]) -> [LifecycleAction] {
        guard !list.isEmpty else { return becomeReady(s) }
        var s = s
        s.step = .resubscribing
        s.pendingResubscriptions = list
        state = .connected(s)
        return [.deliver(.phase(.resubscribing)), .resubscribe(list)]
    }

    private mutating func becomeReady(_ s: ConnectedState) -> [LifecycleAction] {
        var s = s
        s.step = .ready
        s.pendingResubscriptions = []
        s.applicationWaiting = false
        state = .connected(s)
        failedAttempts = 0
        return [.deliver(.phase(.ready))]
    }
}
