/// Where one open conversation of a ``ReplaySession`` stands between its pieces.
enum ReplayedConversation {
    /// Not replayed: the mirror of one replayed lately, or on another handle than asked.
    case skipped
    /// Replayed so far into `step`, which keeps `keptBytes` of divergences; as client,
    /// with our client's link.
    case replaying(ReplaySession.Step, keptBytes: Int, client: ClientReplay.Session?)
}

extension ReplayReport {
    /// Adds the report of a piece whose first PDU is `offset` into its conversation,
    /// keeping its divergences within `bound` (`kept` bytes by this conversation,
    /// `keptInAll` by every open one) and counting the rest.
    mutating func absorb(_ piece: ReplayReport, offset: Int, bound: ReplaySession.DivergenceBound,
                         kept: inout Int, keptInAll: inout Int) {
        matched += piece.matched
        notReplayed += piece.notReplayed
        unkeptDivergences += piece.unkeptDivergences
        unkeptExplained += piece.unkeptExplained
        for var d in piece.divergences {
            d.index += offset
            let cost = d.input.bytes.count + (d.expected?.count ?? 0) + (d.actual?.count ?? 0) + 512
            if divergences.count < bound.perConversation, keptInAll + cost <= bound.totalBytes {
                divergences.append(d)
                kept += cost
                keptInAll += cost
            } else {
                unkeptDivergences += 1
                if d.cause != nil { unkeptExplained += 1 }
            }
        }
    }
}
