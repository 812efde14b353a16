// fuzz-modules: BluetoothCore GatewayCore
// libFuzzer target for the gateway's decision machines. The input is a script: each byte
// chooses an input (connect outcome, disconnect of any handle, advertisement, request,
// work done, incoming link, adapter reset, a time step of any size, even backwards) for a
// scheduler, a two-adapter pool, the availability tracker, the watchdog and scan health;
// the tail is also decoded as a lease payload. Nothing may trap, and the scheduler never
// sends a second LE Create Connection while one is pending, never connects with every
// slot held, and counts exactly the links the events reported.
import BluetoothCore
import GatewayCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGatewayCore(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var scheduler = ConnectionScheduler(configuration: SchedulerConfiguration(maxConnections: 2), random: SplitMix64(seed: 1))
    var pool = AdapterPool(adapters: [("hci0", SchedulerConfiguration(maxConnections: 1)),
                                      ("hci1", SchedulerConfiguration(maxConnections: 2))], seed: 2)
    var availability = AvailabilityTracker()
    var watchdog = SubscriptionWatchdog()
    var health = ScanHealth(adapter: "hci0")
    let names: [DeviceID] = ["a", "b", "c", "d"]
    let policies: [ConnectPolicy] = [.keep, .poll(every: .seconds(5)), .onDemand, .never]
    let sub = DesiredSubscription(characteristic: BluetoothUUID(0x2A37))
    var now: UInt64 = 0
    var handles: Set<UInt16> = []
    for (i, d) in names.enumerated() {
        run(&scheduler, handles, ends: false) { $0.add(d, policy: policies[i], at: MonotonicTime(nanoseconds: now)) }
        _ = pool.add(d, policy: policies[i], at: MonotonicTime(nanoseconds: now))
        availability.register(d, followsLink: i == 0)
        _ = watchdog.setDesired(d, [sub], at: MonotonicTime(nanoseconds: now))
    }
    _ = health.scanning(true, at: MonotonicTime(nanoseconds: now))
    var i = 0
    while i + 1 < bytes.count {
        let op = bytes[i], arg = bytes[i + 1]
        i += 2
        let device = names[Int(arg) % names.count]
        let adapter: AdapterID = arg & 0x80 == 0 ? "hci0" : "hci1"
        let handle = UInt16(arg & 0x0F)
        let t = MonotonicTime(nanoseconds: now)
        switch op % 12 {
        case 0:
            let before = scheduler.pendingDevice
            let peer = arg & 0x40 == 0 ? before ?? device : nil
            handles.insert(handle)
            run(&scheduler, handles, ends: peer != nil && peer == before) { $0.connected(handle: handle, device: peer, at: t) }
            _ = pool.connected(on: adapter, handle: handle, device: device, at: t)
            _ = availability.connected(device, at: t)
            _ = watchdog.connected(device, at: t)
        case 1:
            run(&scheduler, handles, ends: true) { $0.connectFailed(HCIReason(arg), at: t) }
            _ = pool.connectFailed(on: adapter, reason: HCIReason(arg), at: t)
        case 2:
            handles.remove(handle)
            run(&scheduler, handles, ends: false) { $0.disconnected(handle: handle, reason: HCIReason(arg), at: t) }
            _ = pool.disconnected(on: adapter, handle: handle, reason: HCIReason(arg), at: t)
            _ = availability.disconnected(device, at: t)
            _ = watchdog.disconnected(device, at: t)
        case 3:
            run(&scheduler, handles, ends: false) { $0.advertisement(from: device, at: t) }
            _ = pool.advertisement(from: device, on: adapter, at: t)
            _ = availability.advertisement(from: device, at: t)
            _ = health.advertisements(Int(arg), at: t)
        case 4:
            run(&scheduler, handles, ends: false) { $0.request(device, at: t) }
            _ = pool.request(device, at: t)
        case 5:
            run(&scheduler, handles, ends: false) { $0.workDone(device, at: t) }
            _ = pool.workDone(device, at: t)
        case 6:
            handles.removeAll()
            run(&scheduler, handles, ends: true) { $0.adapterReset(at: t) }
            _ = arg & 1 == 0 ? pool.adapterDown(adapter, at: t) : pool.adapterUp(adapter, at: t)
        case 7:
            run(&scheduler, handles, ends: false) { $0.add(device, policy: policies[Int(arg >> 2) % 4], at: t) }
            _ = pool.add(device, policy: policies[Int(arg >> 2) % 4], affinity: arg & 2 == 0 ? ["hci1"] : [], at: t)
        case 8:
            run(&scheduler, handles, ends: false) { $0.remove(device, at: t) }
            _ = pool.remove(device, at: t)
        case 9:
            _ = watchdog.notification(device, sub, at: t)
            _ = health.scanning(arg & 1 == 0, at: t)
        case 10:
            // A step of any size, saturating; sometimes backwards.
            let step = UInt64(arg) << (UInt64(arg) % 40)
            now = arg & 1 == 0 ? now.addingReportingOverflow(step).partialValue : now &- min(now, step)
        default:
            run(&scheduler, handles, ends: false) { $0.tick(at: t) }
            _ = pool.tick(at: t)
            _ = availability.tick(at: t)
            _ = watchdog.tick(at: t)
            _ = health.tick(at: t)
        }
    }
    if let record = try? LeaseRecord(json: Array(bytes.suffix(200))) {
        precondition((try? LeaseRecord(json: record.jsonBytes())) == record, "a decoded record does not round-trip")
    }
    var lease = DeviceLease(gateway: "gw")
    _ = lease.observed(try? LeaseRecord(json: bytes), at: 1e9)
    _ = lease.setCanServe(true, at: 1e9)
    _ = lease.tick(at: 1e9 + 3)
    return 0
}

/// Runs one scheduler input and checks its invariants. `ends` says the input may end the
/// pending connect (its completion, a failure, a reset); no other may start a new one
/// while one is pending.
func run(_ s: inout ConnectionScheduler, _ handles: Set<UInt16>, ends: Bool,
         _ input: (inout ConnectionScheduler) -> GatewayStep<SchedulerAction>) {
    let pendingBefore = s.pendingDevice
    let step = input(&s)
    let connects = step.actions.filter { if case .connect = $0 { true } else { false } }
    precondition(connects.count <= 1, "two LE Create Connection in one step")
    if case .connect(let d)? = connects.first {
        precondition(pendingBefore == nil || ends, "a connect while one was pending")
        precondition(s.pendingDevice == d, "a connect the scheduler does not track as pending")
        precondition(s.slotsUsed < s.configuration.maxConnections, "a connect with every slot held")
    }
    precondition(s.slotsUsed == handles.count, "slots \(s.slotsUsed) but \(handles.count) links reported")
}
