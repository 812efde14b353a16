extension MemoryRadio {
    /// One advertising event of every enabled advertiser: each scanner hears its
    /// advertisement and scan response again, as it would from the air once per
    /// advertising interval. Paused advertising (a full peripheral's) is not heard.
    public func advertiseAgain() {
        let (scanners, reports) = state.withLock { s -> ([@Sendable (Advertisement) -> Void], [Advertisement]) in
            guard s.powered, !s.scanners.isEmpty else { return ([], []) }
            let reports = s.advertisers.values.filter(\.isEnabled).flatMap { [$0.advertisement, $0.scanResponse] }
            return (Array(s.scanners.values), reports)
        }
        for scanner in scanners {
            for report in reports { scanner(report) }
        }
    }
}
