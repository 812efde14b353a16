/// The robustness probes (`ATTUNE/SR/ROB/...`): requests at the edges of what Core 5.4
/// Vol 3 Part F allows, run after the GATT test suite and reported like its tests. They
/// are Attune's own, not Bluetooth SIG test cases, so their ids say so.
extension ServerTestCatalog {
    /// Every probe, in run order. The second MTU exchange goes last: an IUT that wrongly
    /// takes the new MTU would change the answers every later probe judges.
    public static var robustnessProbes: [ServerTestCase] {
        [blobAcrossLongValue, blobOnEmptyValue, readHandleZero, rangeStartAfterEnd, rangeStartAtZero,
         truncatedPDU, pipelinedRequests, prepareQueueOverflow, longWriteOf512, longWriteOf513, secondMTUExchange]
    }
}
