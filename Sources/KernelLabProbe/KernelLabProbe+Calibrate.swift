import EventLoop
import Glibc
import Transport

extension KernelLabProbe {
    /// Fixed workloads, timed: run on the host and in the VM, their ratios are
    /// the TCG slowdown the benchmark figures carry. Three kinds, because TCG
    /// slows them very differently: register arithmetic, allocation-heavy
    /// Swift (sorting and hashing), and system calls (kernel entry and exit,
    /// which a socket round trip is mostly made of).
    static func calibrate(log: ProbeLog) {
        var start = KernelEventLoop.now()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000_000 {
            // xorshift64; its result is printed, so the loop stays.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
        }
        log.pass("calibrate: arithmetic", "20M xorshift steps in \(ms(elapsed(since: start))) ms (\(state & 0xFF))")

        start = KernelEventLoop.now()
        var checksum = 0
        for round in 0..<20 {
            var values = (0..<20_000).map { ($0 &* 2_654_435_761 &+ round) & 0xFFFF_FFFF }
            values.sort()
            var counts: [Int: Int] = [:]
            for value in values { counts[value & 0x3FF, default: 0] += 1 }
            checksum &+= counts.count &+ values[values.count / 2]
        }
        log.pass("calibrate: sort and hash", "20 × 20k values in \(ms(elapsed(since: start))) ms (\(checksum & 0xFF))")

        start = KernelEventLoop.now()
        for _ in 0..<100_000 { _ = getppid() }
        log.pass("calibrate: system calls", "100k getppid in \(ms(elapsed(since: start))) ms")
    }
}
