import ATT
import Capture
import GATT

/// Replays the server side of captured conversations against our GATT client: the
/// procedures the captured client ran (see ``ClientProcedureInference``) are performed
/// by our client, each PDU it sends is compared with the captured client's, and the
/// captured server's answer to that request is fed back. The captured server's own
/// notifications and indications are fed at their place in the capture, and our
/// confirmations compared with the captured client's.
///
/// When our client sends a request the capture has no answer for (it diverged), the
/// procedure is cancelled and the outstanding request is answered with Unlikely Error
/// (0x0E) so that the client can go on; those answers are not compared.
public enum ClientReplay {
    public static func run(_ conversations: [ATTConversation]) -> [ReplayReport] {
        conversations.map { run($0) }
    }

    public static func run(_ conversation: ATTConversation) -> ReplayReport {
        var session = Session(conversation)
        return session.replay(conversation)
    }

    /// The GATT client command that runs a captured procedure, or nil when our client has
    /// no command for it (cancelled prepared writes, signed writes without the peer's key).
    /// The replay runs those two all the same: cancelled prepared writes as a reliable write
    /// it cancels after the last part, signed writes signed with a key of its own from the
    /// captured sign counter (compared but for the MAC).
    public static func command(for kind: CapturedProcedure.Kind) -> GATTClientCommand? {
        switch kind {
        case .exchangeMTU: return .exchangeMTU
        case let .discoverAllPrimaryServices(r): return .discoverAllPrimaryServices(in: r)
        case let .discoverPrimaryServices(u, r): return .discoverPrimaryServices(u, in: r)
        case let .discoverSecondaryServices(r): return .discoverSecondaryServices(in: r)
        case let .findIncludedServices(r): return .findIncludedServices(in: r)
        case let .discoverAllCharacteristics(r): return .discoverAllCharacteristics(in: r)
        case let .discoverDescriptors(r): return .discoverDescriptors(in: r)
        case let .readValue(h): return .readValue(h)
        case let .readLongValue(h, o): return .readLongValue(h, offset: o)
        case let .readUsingCharacteristicUUID(u, r): return .readUsingCharacteristicUUID(u, in: r)
        case let .readMultiple(hs): return .readMultiple(hs)
        case let .readMultipleVariable(hs): return .readMultipleVariable(hs)
        case let .writeValue(h, v): return .writeValue(h, v)
        case let .writeWithoutResponse(h, v): return .writeWithoutResponse(h, v)
        case let .writeLongValue(h, o, v): return .writeLongValue(h, offset: o, v)
        case let .reliableWrite(parts):
            return .reliableWrite(parts.map { PreparedWrite(handle: $0.handle, offset: $0.offset, value: $0.value) })
        case .signedWriteWithoutResponse, .cancelledWrites, .other: return nil
        }
    }

    /// Our client on one captured connection, replaying it piece by piece (see
    /// ``ATTConversationPiece``): the link, with its MTU, subscriptions and sign counter,
    /// lives from the first piece to the last; each piece's PDUs are dropped once replayed.
    struct Session {
        /// The piece being replayed.
        var conversation: ATTConversation
        var connection: GATTLink
        var report = ReplayReport()
        var responseOf: [Int: Int] = [:]
        /// Server PDUs sent on their own (notifications, indications), in capture order.
        var unsolicited: [Int] = []
        var nextUnsolicited = 0
        let origin: Int64

        /// - Parameter conversation: the whole conversation, or its first piece: the
        ///   client's receive MTU and the first sign counter are taken from it.
        init(_ conversation: ATTConversation) {
            self.conversation = conversation
            var clientMTU: UInt16 = conversation.mtusBefore.client ?? 23
            for p in conversation.pdus {
                if case let .success(.exchangeMTURequest(r)) = p.pdu { clientMTU = r.clientRxMTU; break }
            }
            // Signed writes are signed with a key of our own, counting from the captured
            // client's first sign counter: the counter is compared, the MAC (the captured
            // client's key is not in the capture) is not.
            var signing: SigningKey?
            for p in conversation.pdus {
                if case let .success(.signedWriteCommand(w)) = p.pdu {
                    signing = SigningKey(csrk: Array(repeating: 0, count: 16), signCounter: w.signCounter)
                    break
                }
            }
            connection = GATTLink(configuration: GATTClientConfiguration(
                rxMTU: clientMTU, exchangesMTUOnStart: false, discoversOnStart: false, subscribesToServiceChanged: false,
                signingKey: signing))
            origin = conversation.pdus.first?.frame.timestamp ?? 0
            load(conversation)
        }

        /// Replays the next piece of the conversation (the first included) on the same
        /// link; the report's indices are the piece's.
        mutating func replay(_ piece: ATTConversation) -> ReplayReport {
            load(piece)
            run()
            // The piece's PDUs are not kept past its replay.
            conversation.pdus = []
            return report
        }

        /// Makes `piece` the PDUs replayed next, with its transactions and pushes.
        mutating func load(_ piece: ATTConversation) {
            conversation = piece
            report = ReplayReport()
            responseOf = [:]
            unsolicited = []
            nextUnsolicited = 0
            for t in conversation.transactions { if let r = t.response { responseOf[t.request] = r } }
            for (i, _) in conversation.pdus.enumerated() where conversation.sender(of: i) == .server {
                let kind = ATTOpcode(conversation.pdus[i].opcode ?? 0).kind
                if kind == .notification || kind == .indication { unsolicited.append(i) }
            }
        }

        func time(_ index: Int) -> MonotonicTime {
            ReplayClock.time(conversation.pdus[index].frame.timestamp, since: origin)
        }

        mutating func run() {
            for procedure in ClientProcedureInference.procedures(in: conversation) {
                feedUnsolicited(before: procedure.requests.first ?? Int.max)
                var cancelling = false
                let command: GATTClientCommand
                switch procedure.kind {
                case let .cancelledWrites(parts) where endsWithCancel(procedure):
                    // Prepared writes the captured client cancelled: ours prepares the same
                    // parts and cancels once the last is answered.
                    command = .reliableWrite(parts.map { PreparedWrite(handle: $0.handle, offset: $0.offset, value: $0.value) })
                    cancelling = true
                case let .signedWriteWithoutResponse(h, v) where connection.client.configuration.signingKey != nil:
                    command = .signedWriteWithoutResponse(h, v)
                default:
                    guard let known = ClientReplay.command(for: procedure.kind) else {
                        report.notReplayed += procedure.requests.count
                        continue
                    }
                    command = known
                }
                let before = report.divergences.count
                perform(command, expecting: procedure.requests, cancellingAfterLastPart: cancelling)
                for k in before..<report.divergences.count {
                    report.divergences[k].cause = cause(of: report.divergences[k], in: procedure)
                }
            }
            feedUnsolicited(before: Int.max)
        }

        /// Feeds the captured server's notifications and indications that came before
        /// `index`; an indication's confirmation from our client is compared with the
        /// captured client's.
        mutating func feedUnsolicited(before index: Int) {
            while nextUnsolicited < unsolicited.count, unsolicited[nextUnsolicited] < index {
                let i = unsolicited[nextUnsolicited]
                nextUnsolicited += 1
                let actions = connection.receive(conversation.pdus[i].bytes, at: time(i))
                guard ATTOpcode(conversation.pdus[i].opcode ?? 0).kind == .indication else { continue }
                let ours = actions.compactMap { if case let .send(b) = $0 { return b } else { return nil } }.first
                let captured = responseOf[i].map { conversation.pdus[$0] }
                if let captured, let ours, captured.bytes.elementsEqual(ours) {
                    report.matched += 1
                } else if captured == nil, ours == nil {
                    report.matched += 1
                } else {
                    report.divergences.append(ReplayDivergence(index: i, input: conversation.pdus[i], expected: captured,
                                                               actual: ours, role: .client))
                }
            }
        }

        /// Whether a procedure of prepared writes ends with the captured client's Execute
        /// Write cancelling them (rather than being left unexecuted).
        func endsWithCancel(_ procedure: CapturedProcedure) -> Bool {
            guard let last = procedure.requests.last, case let .success(.executeWriteRequest(e)) = conversation.pdus[last].pdu
            else { return false }
            return e.flags == .cancel
        }

        /// Whether our PDU is the captured one: byte for byte, except a Signed Write
        /// Command's MAC (the last 8 bytes; the captured client's key is not in the capture).
        func sameRequest(_ captured: ArraySlice<UInt8>, _ ours: [UInt8]) -> Bool {
            if ours.first == ATTOpcode.signedWriteCommand.rawValue, captured.count == ours.count, ours.count >= 15 {
                return captured.dropLast(8).elementsEqual(ours.dropLast(8))
            }
            return captured.elementsEqual(ours)
        }

        /// - Parameter cancellingAfterLastPart: cancel the command once the last of
        ///   `requests` but one (the captured Execute Write cancelling the queue) is sent,
        ///   so that our client cancels the prepared writes as the captured one did.
        mutating func perform(_ command: GATTClientCommand, expecting requests: [Int], cancellingAfterLastPart: Bool = false) {
            var expected = requests[...]
            let now = time(requests.first ?? 0)
            let (id, first) = connection.perform(command, at: now)
            var pending = first
            var diverged = false
            var guardCount = 0
            while !pending.isEmpty, guardCount < 100_000 {
                guardCount += 1
                let action = pending.removeFirst()
                switch action {
                case let .send(bytes):
                    if diverged {
                        // After a divergence only unblock the client; nothing is compared.
                        pending += unblock(bytes, at: now)
                        continue
                    }
                    guard let next = expected.first else {
                        report.divergences.append(ReplayDivergence(index: requests.last ?? 0,
                            input: conversation.pdus[requests.last ?? 0], expected: nil, actual: bytes, role: .client))
                        diverged = true
                        pending += connection.cancel(id, at: now) + unblock(bytes, at: now)
                        continue
                    }
                    let captured = conversation.pdus[next]
                    guard sameRequest(captured.bytes, bytes) else {
                        report.divergences.append(ReplayDivergence(index: next, input: captured,
                            expected: captured, actual: bytes, role: .client))
                        diverged = true
                        pending += connection.cancel(id, at: now) + unblock(bytes, at: now)
                        continue
                    }
                    report.matched += 1
                    expected.removeFirst()
                    if cancellingAfterLastPart, expected.count == 1, let r = responseOf[next],
                       case .success(.prepareWriteResponse) = conversation.pdus[r].pdu {
                        // The last part was accepted: cancel, and the engine cancels the
                        // queue on the server once this response is in.
                        pending += connection.cancel(id, at: now)
                    }
                    if let r = responseOf[next] {
                        pending += connection.receive(conversation.pdus[r].bytes, at: time(r))
                    }
                default:
                    break
                }
            }
            if !diverged, let next = expected.first {
                // The captured client went on where ours stopped.
                report.divergences.append(ReplayDivergence(index: next, input: conversation.pdus[next],
                    expected: conversation.pdus[next], actual: nil, role: .client))
            }
        }

        /// The known causes of a client divergence.
        func cause(of d: ReplayDivergence, in procedure: CapturedProcedure) -> DivergenceCause? {
            let ours = d.actualDecoded
            if case .readUsingCharacteristicUUID = procedure.kind, d.expected == nil, case .readByTypeRequest? = ours {
                return .readUsingUUIDContinues
            }
            if case let .executeWriteRequest(e)? = ours, e.flags == .cancel, d.expected == [0x18, 0x01] {
                let refused = procedure.requests.contains { i in
                    if let r = responseOf[i], case .success(.errorResponse) = conversation.pdus[r].pdu { return true }
                    return false
                }
                if refused {
                    return .refusedPartCancelsQueue
                }
            }
            return nil
        }

        /// Answers a request that the capture cannot answer with Unlikely Error.
        mutating func unblock(_ bytes: [UInt8], at now: MonotonicTime) -> [GATTClientAction] {
            guard let first = bytes.first, ATTOpcode(first).kind == .request else { return [] }
            let handle: [UInt8] = bytes.count >= 3 ? [bytes[1], bytes[2]] : [0, 0]
            return connection.receive([0x01, first] + handle + [ATTErrorCode.unlikelyError.rawValue], at: now)
        }
    }
}
