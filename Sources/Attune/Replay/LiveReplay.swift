import Replay

/// A captured central's procedures run again against a live peripheral, through our
/// central: "does the new firmware still answer the way the old one did?". Each
/// procedure's result is compared with what the captured server's answers made of it.
public enum LiveReplay {
    /// One procedure, captured and live.
    public struct Outcome: Sendable {
        public enum Verdict: Hashable, Sendable {
            /// The live peripheral answered as the captured one did.
            case matched
            case diverged
            /// Not run: our client has no command for it (see ``CapturedProcedureRun/command``),
            /// or it is the Exchange MTU the connection already made when it came up.
            case notReplayed
            /// Run, but the capture holds no answer our client could use (our request
            /// differed from the captured client's), so there is nothing to compare.
            case notComparable
        }

        public var run: CapturedProcedureRun
        /// What the captured server's answers made of the procedure.
        public var captured: Result<GATTClientResponse, AttuneError>?
        /// What the live peripheral's answers made of it; nil when not run.
        public var live: Result<GATTClientResponse, AttuneError>?
        /// How long the live procedure took.
        public var duration: Duration
        public var verdict: Verdict
        /// Why the answers differ, when the difference has a known cause.
        public var cause: DivergenceCause?
    }

    /// Runs every procedure of `conversation` in order on `peripheral` (connected).
    /// - Parameter progress: called after each procedure, for a caller that prints as it goes.
    public static func run(_ conversation: ATTConversation, against peripheral: Peripheral,
                           progress: (Outcome) async -> Void = { _ in }) async -> [Outcome] {
        let properties = declaredProperties(in: conversation)
        let serviceChanges = serviceChangedIndications(in: conversation)
        let clock = ContinuousClock()
        var results: [Outcome] = []
        // Handles a write may have left unlike the capture's, with the record of that
        // write and whether both servers refused it (else it diverged or was not run).
        var unsettled: [AttributeHandle: (record: Int, refused: Bool)] = [:]
        for run in CapturedProcedureRun.runs(in: conversation) {
            let captured = run.captured.map { $0.mapError { AttuneError($0) } }
            var result = Outcome(run: run, captured: captured, live: nil, duration: .zero, verdict: .notReplayed)
            if case .exchangeMTU = run.procedure.kind {
                // The connection exchanged its own MTU when it came up; a second exchange
                // is a protocol error (Vol 3 Part F §3.4.2.1).
            } else if run.command != nil {
                let start = clock.now
                result.live = await peripheral.perform(run)
                result.duration = clock.now - start
                if captured == nil {
                    result.verdict = .notComparable
                } else if captured == result.live {
                    result.verdict = .matched
                } else {
                    result.verdict = .diverged
                    result.cause = cause(of: run.procedure, in: conversation, properties, unsettled, serviceChanges)
                }
            }
            // A write both servers accepted settles the value; one refused, diverged or not
            // run leaves it open.
            let record = run.procedure.requests.first.map { conversation.pdus[$0].frame.recordIndex } ?? 0
            let refused: Bool
            if case .failure? = captured { refused = true } else { refused = false }
            for handle in writtenHandles(run.procedure.kind) {
                unsettled[handle] = result.verdict == .matched && !refused
                    ? nil : (record, result.verdict == .matched && refused)
            }
            results.append(result)
            await progress(result)
        }
        return results
    }

    /// The known cause of a divergence: a read of a value an earlier write left unlike the
    /// capture's (a write that diverged or was not run, or one both servers refused but
    /// the captured server applied part of); discovery after the captured server's database changed (Service Changed
    /// indicated); a value read from a characteristic that notifies or indicates, which is
    /// live data and differs from the captured moment's.
    static func cause(of procedure: CapturedProcedure, in conversation: ATTConversation,
                      _ properties: [AttributeHandle: UInt8], _ unsettled: [AttributeHandle: (record: Int, refused: Bool)],
                      _ serviceChanges: [(index: Int, record: Int)]) -> DivergenceCause? {
        let first = procedure.requests.first ?? 0
        switch procedure.kind {
        case let .readValue(h), let .readLongValue(h, _):
            if let write = unsettled[h] {
                return write.refused ? .refusedWriteChangedValue(record: write.record, handle: h)
                    : .followsDivergence(record: write.record, handle: h)
            }
            if let bits = properties[h], bits & 0x30 != 0 { return .valueIsLive(handle: h, properties: bits) }
            return nil
        case .discoverAllPrimaryServices, .discoverPrimaryServices, .discoverSecondaryServices, .findIncludedServices,
             .discoverAllCharacteristics, .discoverDescriptors:
            guard let change = serviceChanges.last(where: { $0.index < first }) else { return nil }
            return .databaseChanged(serviceChangedAt: change.record)
        default:
            return nil
        }
    }

    /// The handles a write procedure writes.
    static func writtenHandles(_ kind: CapturedProcedure.Kind) -> [AttributeHandle] {
        switch kind {
        case let .writeValue(h, _), let .writeWithoutResponse(h, _), let .signedWriteWithoutResponse(h, _),
             let .writeLongValue(h, _, _):
            return [h]
        case let .reliableWrite(parts), let .cancelledWrites(parts):
            return parts.map(\.handle)
        default:
            return []
        }
    }

    /// Where (conversation index and record) the captured server indicated Service
    /// Changed, on a characteristic the captured discovery showed to be one.
    static func serviceChangedIndications(in conversation: ATTConversation) -> [(index: Int, record: Int)] {
        var handles: Set<AttributeHandle> = []
        var found: [(index: Int, record: Int)] = []
        for (i, pdu) in conversation.pdus.enumerated() {
            switch pdu.pdu {
            case let .success(.readByTypeResponse(r)):
                for e in r.entries where e.value.count == 5 {
                    let s = e.value.startIndex
                    if e.value[s + 3] == 0x05, e.value[s + 4] == 0x2A {
                        handles.insert(AttributeHandle(UInt16(e.value[s + 1]) | UInt16(e.value[s + 2]) << 8))
                    }
                }
            case let .success(.handleValueIndication(n)) where handles.contains(n.handle):
                found.append((i, pdu.frame.recordIndex))
            default:
                break
            }
        }
        return found
    }

    /// Characteristic properties by value handle, as the captured discovery showed them.
    static func declaredProperties(in conversation: ATTConversation) -> [AttributeHandle: UInt8] {
        var found: [AttributeHandle: UInt8] = [:]
        for pdu in conversation.pdus {
            guard case let .success(.readByTypeResponse(r)) = pdu.pdu else { continue }
            for e in r.entries where e.value.count == 5 || e.value.count == 19 {
                let s = e.value.startIndex
                found[AttributeHandle(UInt16(e.value[s + 1]) | UInt16(e.value[s + 2]) << 8)] = e.value[s]
            }
        }
        return found
    }
}
