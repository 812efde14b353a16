import HCI
import Synchronization

/// An in-process radio: central and peripheral managers opened with `.memory(radio)` on
/// the same radio see each other's advertisements and connect through in-memory links.
/// Every PDU still runs through the real ATT bearer and GATT engines.
///
/// Tests use ``dropLinks(reason:)`` and ``setPowered(_:)`` to make links fail and the
/// controller go down.
public final class MemoryRadio: Sendable {
    struct Advertiser {
        var address: BluetoothAddress
        var advertisement: Advertisement
        /// What a scan request gets back, as a real advertiser answers an active scan.
        var scanResponse: Advertisement
        var accept: @Sendable (any ATTLink) -> Void
        /// False while paused: a connection stops connectable advertising, as a
        /// controller's legacy advertising does (Vol 4 Part E §7.8.9), until the
        /// peripheral enables it again.
        var isEnabled = true
    }

    struct PendingConnect {
        var central: (BluetoothAddress, BluetoothAddressType)
        var target: BluetoothAddress
        var continuation: CheckedContinuation<any ATTLink, any Error>
    }

    struct State {
        var advertisers: [BluetoothAddress: Advertiser] = [:]
        var scanners: [Int: @Sendable (Advertisement) -> Void] = [:]
        /// Whose controller each scan is, for ``resetController(_:)``.
        var scanOwners: [Int: BluetoothAddress] = [:]
        var pending: [Int: PendingConnect] = [:]
        /// Each link end with the controller it belongs to.
        var links: [(owner: BluetoothAddress, end: MemoryLink)] = []
        var nextID = 1
        var nextAddress: UInt64 = 1
        var assigned: BluetoothAddress?
        var powered = true
        /// Controllers being reset: they alone report ``ManagerState/resetting``.
        var resetting: Set<BluetoothAddress> = []
        /// Controllers powered off on their own (``setPowered(_:controller:)``).
        var unpowered: Set<BluetoothAddress> = []
        var statusListeners: [Int: (owner: BluetoothAddress, continuation: AsyncStream<ManagerStatus>.Continuation)] = [:]
        var tap: (@Sendable (MemoryTapEvent) -> Void)?
        var nextConnection: UInt16 = 1
        /// Repeats the advertising events while the radio lives (``init(advertisingInterval:)``).
        var repeater: Task<Void, Never>?
    }

    let state = Mutex(State())

    /// A powered radio with nobody on it. Each advertisement reaches the scanners once:
    /// when it starts, and when a scan starts (tests count reports exactly).
    public init() {}

    /// A powered radio whose advertisers repeat their advertising events every
    /// `advertisingInterval`, as real legacy advertising does: a scanner that missed a
    /// report (its bounded stream was full, or it was not listening) hears it again.
    /// Paused advertising (a peripheral at its maximum of centrals) is not repeated.
    /// ``advertiseAgain()`` runs one event at a time instead, for tests with their own clock.
    public init(advertisingInterval: Duration) {
        let interval = max(advertisingInterval, .milliseconds(20))
        let repeater = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                self.advertiseAgain()
            }
        }
        state.withLock { $0.repeater = repeater }
    }

    deinit {
        state.withLock { $0.repeater?.cancel() }
    }

    /// Reports every link of this radio from now on to `tap`: connections, each ATT PDU
    /// and disconnections (``MemorySnoop`` records them as a btsnoop file). The tap runs
    /// on the sender's thread while the link is locked, so it must be quick and must not
    /// call back into the radio. nil removes it.
    public func setTap(_ tap: (@Sendable (MemoryTapEvent) -> Void)?) {
        state.withLock { $0.tap = tap }
    }

    /// The next manager opened on this radio takes `address` instead of a fresh static
    /// one: a test's peer at a particular address (a resolvable private address made from
    /// a known IRK, say, to check that a bonded central follows it).
    public func assignNextAddress(_ address: BluetoothAddress) {
        state.withLock { $0.assigned = address }
    }

    /// A fresh random static address (top two bits set) for a new controller.
    func allocateAddress() -> BluetoothAddress {
        state.withLock { s in
            if let assigned = s.assigned {
                s.assigned = nil
                return assigned
            }
            defer { s.nextAddress += 1 }
            return BluetoothAddress(rawValue: 0xC0_00_00_00_00_00 | s.nextAddress)
        }
    }

    /// Ends every link as if the radio connection was lost (default: Connection Timeout,
    /// 0x08, the supervision timeout).
    public func dropLinks(reason: HCIStatus = HCIStatus.connectionTimeout) {
        let links = state.withLock { s -> [MemoryLink] in
            defer { s.links = [] }
            return s.links.map(\.end)
        }
        for link in links { link.end(reason) }
    }

    /// Powers the radio on or off; off drops every link, stops advertising and scanning,
    /// and managers report ``ManagerState/poweredOff``.
    public func setPowered(_ on: Bool) {
        let listeners = state.withLock { s -> [(AsyncStream<ManagerStatus>.Continuation, ManagerStatus)] in
            s.powered = on
            if !on {
                s.advertisers = [:]
                s.scanners = [:]
                s.scanOwners = [:]
            }
            return s.statusListeners.values.map { ($0.continuation, Self.status(of: $0.owner, s)) }
        }
        if !on { dropLinks(reason: HCIStatus.remoteDevicePowerOff) }
        for (listener, status) in listeners { listener.yield(status) }
    }

    /// Powers one controller of the radio on or off, as unplugging one adapter would: off
    /// ends its links (the peers see a supervision timeout, 0x08), its scans, its pending
    /// connects and its advertising, and its managers report ``ManagerState/poweredOff``;
    /// the rest of the radio carries on. `controller` is the address the radio gave it
    /// (each manager opened on the radio takes the next one, after any
    /// ``assignNextAddress(_:)``).
    public func setPowered(_ on: Bool, controller: BluetoothAddress) {
        let (listeners, links, pending) = state.withLock { s in
            if on { s.unpowered.remove(controller) } else { s.unpowered.insert(controller) }
            var links: [MemoryLink] = []
            var pending: [PendingConnect] = []
            if !on {
                for (token, owner) in s.scanOwners where owner == controller {
                    s.scanners[token] = nil
                    s.scanOwners[token] = nil
                }
                s.advertisers[controller] = nil
                links = s.links.filter { $0.owner == controller }.map(\.end)
                s.links.removeAll { $0.owner == controller }
                let waiting = s.pending.filter { $0.value.central.0 == controller }
                for id in waiting.keys { s.pending[id] = nil }
                pending = Array(waiting.values)
            }
            let listeners = s.statusListeners.values.filter { $0.owner == controller }
                .map { ($0.continuation, Self.status(of: controller, s)) }
            return (listeners, links, pending)
        }
        for link in links {
            // Our side: the controller is gone (0x15, powered off); the peer's: silence.
            link.end(HCIStatus.remoteDevicePowerOff)
            link.peerEnd.end(HCIStatus.connectionTimeout)
        }
        for connect in pending { connect.continuation.resume(throwing: AttuneError.unavailable(.adapterDown("memory controller"))) }
        for (listener, status) in listeners { listener.yield(status) }
    }

    /// The state a controller on the radio reports.
    func status(of controller: BluetoothAddress) -> ManagerStatus {
        state.withLock { Self.status(of: controller, $0) }
    }

    static func status(of controller: BluetoothAddress, _ s: State) -> ManagerStatus {
        guard s.powered else { return ManagerStatus(cause: .adapterDown("memory radio")) }
        guard !s.unpowered.contains(controller) else { return ManagerStatus(cause: .adapterDown("memory controller")) }
        return s.resetting.contains(controller) ? ManagerStatus(state: .resetting) : .poweredOn
    }

    func statusUpdates(of controller: BluetoothAddress) -> AsyncStream<ManagerStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ManagerStatus.self)
        let id = state.withLock { s -> Int in
            defer { s.nextID += 1 }
            s.statusListeners[s.nextID] = (controller, continuation)
            return s.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.statusListeners.removeValue(forKey: id) }
        }
        return stream
    }

    func startScanning(from controller: BluetoothAddress,
                       _ report: @escaping @Sendable (Advertisement) -> Void) throws(AttuneError) -> Int {
        let result = state.withLock { s -> (Int, [Advertisement])? in
            guard s.powered, !s.unpowered.contains(controller) else { return nil }
            defer { s.nextID += 1 }
            s.scanners[s.nextID] = report
            s.scanOwners[s.nextID] = controller
            return (s.nextID, s.advertisers.values.filter(\.isEnabled).flatMap { [$0.advertisement, $0.scanResponse] })
        }
        guard let (id, current) = result else { throw .unavailable(.adapterDown("memory radio")) }
        for ad in current { report(ad) }
        return id
    }

    /// Hands a report to every scanner as if it had been received from the air (tests
    /// replay captured reports this way).
    func receive(_ advertisement: Advertisement) {
        for scanner in state.withLock({ Array($0.scanners.values) }) { scanner(advertisement) }
    }

    /// What a scanner starting now would see: the advertising that is enabled, so a test
    /// can tell that a full peripheral paused its connectable advertising.
    public var currentAdvertisements: [Advertisement] {
        state.withLock { s in s.powered ? s.advertisers.values.filter(\.isEnabled).map(\.advertisement) : [] }
    }

    func stopScanning(_ token: Int) {
        state.withLock { s in
            s.scanners[token] = nil
            s.scanOwners[token] = nil
        }
    }

    func startAdvertising(from address: BluetoothAddress, _ parameters: AdvertisingParameters,
                          accept: @escaping @Sendable (any ATTLink) -> Void) throws(AttuneError) {
        // The advertisement goes through the shared AD parser, as one from the air would,
        // split as legacy advertising splits it: what does not fit the 31 bytes of the
        // advertisement goes to the scan response an active scan gets right after. Data
        // too long for both stays whole in the advertisement: the memory radio has no air.
        var (data, response) = UserlandController.split(parameters.advertisingData)
        if data.count + response.count < parameters.advertisingData.count {
            (data, response) = (parameters.advertisingData, [])
        }
        let advertisement = Advertisement(
            address: address, addressType: .random, rssi: -40, data: AdvertisingData(decoding: data[...]),
            isConnectable: parameters.isConnectable, isScannable: true, isScanResponse: false)
        let scanResponse = Advertisement(
            address: address, addressType: .random, rssi: -40, data: AdvertisingData(decoding: response[...]),
            isConnectable: false, isScannable: true, isScanResponse: true)
        let result = state.withLock { s -> ([@Sendable (Advertisement) -> Void], PendingConnect?)? in
            guard s.powered, !s.unpowered.contains(address) else { return nil }
            s.advertisers[address] = Advertiser(address: address, advertisement: advertisement,
                                                scanResponse: scanResponse, accept: accept)
            return (Array(s.scanners.values), Self.takeWaitingConnect(to: address, &s))
        }
        guard let (scanners, waiting) = result else { throw .unavailable(.adapterDown("memory radio")) }
        for scanner in scanners {
            scanner(advertisement)
            scanner(scanResponse)
        }
        if let connect = waiting {
            connect.continuation.resume(returning: link(connect.central, to: address, accept: accept))
        }
    }

    /// The first central waiting to connect to `address`, when it advertises connectably:
    /// that connection stops the advertising, so the others wait for it to resume.
    private static func takeWaitingConnect(to address: BluetoothAddress, _ s: inout State) -> PendingConnect? {
        guard let advertiser = s.advertisers[address], advertiser.isEnabled, advertiser.advertisement.isConnectable,
              let id = s.pending.filter({ $0.value.target == address }).keys.min() else { return nil }
        s.advertisers[address]?.isEnabled = false
        return s.pending.removeValue(forKey: id)
    }

    func stopAdvertising(from address: BluetoothAddress) {
        _ = state.withLock { $0.advertisers.removeValue(forKey: address) }
    }

    /// Pauses or resumes the advertising `address` started, keeping its data and acceptor.
    func setAdvertisingEnabled(_ enabled: Bool, from address: BluetoothAddress) {
        let result = state.withLock { s -> (Advertiser, [@Sendable (Advertisement) -> Void], PendingConnect?)? in
            guard s.powered, let advertiser = s.advertisers[address], advertiser.isEnabled != enabled else { return nil }
            s.advertisers[address]?.isEnabled = enabled
            guard enabled else { return nil }
            return (advertiser, Array(s.scanners.values), Self.takeWaitingConnect(to: address, &s))
        }
        guard let (advertiser, scanners, waiting) = result else { return }
        for scanner in scanners {
            scanner(advertiser.advertisement)
            scanner(advertiser.scanResponse)
        }
        if let connect = waiting {
            connect.continuation.resume(returning: link(connect.central, to: address, accept: advertiser.accept))
        }
    }

    /// Connects now if the target advertises connectably, else waits for it to.
    func connect(from central: (BluetoothAddress, BluetoothAddressType), to target: BluetoothAddress)
        async throws(AttuneError) -> any ATTLink {
        let id = state.withLock { s -> Int in
            defer { s.nextID += 1 }
            return s.nextID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any ATTLink, any Error>) in
                    let found = state.withLock { s -> Advertiser?? in
                        guard s.powered, !s.unpowered.contains(central.0) else { return .some(nil) }
                        if let advertiser = s.advertisers[target], advertiser.isEnabled,
                           advertiser.advertisement.isConnectable {
                            s.advertisers[target]?.isEnabled = false
                            return advertiser
                        }
                        s.pending[id] = PendingConnect(central: central, target: target, continuation: continuation)
                        return nil
                    }
                    switch found {
                    case .some(.some(let advertiser)):
                        continuation.resume(returning: link(central, to: target, accept: advertiser.accept))
                    case .some(.none):
                        continuation.resume(throwing: AttuneError.unavailable(.adapterDown("memory radio")))
                    case .none:
                        if Task.isCancelled { cancelPending(id) }
                    }
                }
            } onCancel: {
                cancelPending(id)
            }
        } catch let error as AttuneError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    private func cancelPending(_ id: Int) {
        let pending = state.withLock { $0.pending.removeValue(forKey: id) }
        pending?.continuation.resume(throwing: AttuneError.cancelled)
    }

    private func link(_ central: (BluetoothAddress, BluetoothAddressType), to target: BluetoothAddress,
                      accept: @Sendable (any ATTLink) -> Void) -> any ATTLink {
        let (c, p) = MemoryLink.pair(central: central, peripheral: (target, .random))
        let tapped = state.withLock { s -> (UInt16, @Sendable (MemoryTapEvent) -> Void)? in
            s.links.removeAll { $0.end.isClosed }
            s.links += [(central.0, c), (target, p)]
            guard let tap = s.tap else { return nil }
            // HCI connection handles are 12 bits; wrap past 0x0EFF like a controller would.
            defer { s.nextConnection = s.nextConnection >= 0x0EFF ? 1 : s.nextConnection + 1 }
            return (s.nextConnection, tap)
        }
        if let (connection, tap) = tapped {
            tap(.connected(connection: connection, central: central.0, peripheral: target))
            c.setTap(MemoryLink.Tap(connection: connection, isCentral: true, report: tap))
            p.setTap(MemoryLink.Tap(connection: connection, isCentral: false, report: tap))
        }
        accept(p)
        return c
    }
}
