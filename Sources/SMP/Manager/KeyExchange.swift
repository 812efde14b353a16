/// Phase 3 in progress (§3.6): the key PDUs still expected from the peer, in order, and
/// the keys each side handed over so far. The responder sends first, the initiator last,
/// so `sent` stays empty on the initiator until it completes the pairing.
struct KeyExchange: Sendable {
    var expected: [SMPCode]
    var received = DistributedKeys()
    var sent = DistributedKeys()
}
