import ATT
import Capture
import CaptureTestSupport
import FixtureTestSupport
import Foundation
import GATT
import HCI
import Replay
import Testing

/// ``ReplaySession`` reads conversations in pieces, so that its memory is bounded; what
/// outlives a piece (our client's link, our server's connection, the explainer, the
/// database rebuilt as the capture streams) carries over, and cuts fall between
/// transactions and procedures, so the pieces replay as the whole conversation did.
@Suite struct ReplayPieceTests {
    /// A conversation's outcome. Not its controller: of a btmon capture's two copies of
    /// a conversation, the one whose first piece comes out first replays, and with small
    /// pieces that may be the other controller's (the same PDUs, received not sent).
    struct Outcome: Equatable {
        var handle: UInt16
        var pdus: Int
        var matched: Int
        var diverged: Int
        var explained: Int
        var notReplayed: Int
        var serverRxMTU: UInt16?
        var divergedAt: [Int]

        init(_ step: ReplaySession.Step) {
            handle = step.handle
            pdus = step.pduCount
            matched = step.report.matched
            diverged = step.report.diverged
            explained = step.report.explained
            notReplayed = step.report.notReplayed
            serverRxMTU = step.serverRxMTU
            divergedAt = step.report.divergences.map(\.index)
        }
    }

    static func replay(_ path: String, _ side: ReplaySession.Side, streamed: Bool = false,
                       limits: ATTConversationPieceStream.Limits = .init()) throws -> (outcomes: [Outcome], forcedCuts: Int) {
        var session = streamed
            ? ReplaySession(reader: try CaptureReader(path: path), side: side, limits: limits)
            : try ReplaySession(path: path, side: side, limits: limits)
        var outcomes: [Outcome] = []
        while let step = try session.next() { outcomes.append(Outcome(step)) }
        return (outcomes, session.forcedCuts)
    }

    /// Every fixture, both sides (as server with the database rebuilt from the file; as
    /// client also streamed): pieces of at most 48 PDUs replay as pieces of 1,024 (whole
    /// conversations, for these captures). A server rebuilding its database as the
    /// capture streams is left out: each piece meets what it and the pieces before it
    /// revealed, so a smaller piece may meet less.
    @Test(arguments: Fixtures.captures)
    func smallPiecesReplayAsWholeConversations(_ name: String) throws {
        let path = Fixtures.capturePath(name)
        for side in [ReplaySession.Side.server, .client] {
            for streamed in side == .client ? [false, true] : [false] {
                let whole = try Self.replay(path, side, streamed: streamed)
                let small = try Self.replay(path, side, streamed: streamed, limits: .init(pieceCount: 48))
                // A procedure longer than half a piece is cut in it, and may then diverge.
                guard small.forcedCuts == 0 else { continue }
                #expect(small.outcomes == whole.outcomes, "\(name) as \(side)\(streamed ? ", streamed" : "")")
            }
        }
    }

    /// One connection of 10,000 reads, in pieces of 64 PDUs: each piece is cut between a
    /// request and its response never, and the conversation reports every PDU once.
    @Test func oneLongConnectionReplaysPieceByPiece() throws {
        var records: [CaptureRecord] = []
        var clock: Int64 = 1_700_000_000_000_000
        func tick() -> Int64 { clock += 1_000; return clock }
        records.append(SynthesizedHCI.connectionComplete(handle: 0x0040, isCentral: false, peerAddressType: 0,
                                                         peer: BluetoothAddress(0, 1, 2, 3, 4, 5), at: tick()))
        for (direction, pdu) in [(CaptureDirection.received, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
                                 (.sent, [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x0F, 0x18]),
                                 (.received, [0x10, 0x04, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
                                 (.sent, [0x01, 0x10, 0x04, 0x00, 0x0A])] as [(CaptureDirection, [UInt8])] {
            records += SynthesizedHCI.attPDU(pdu, handle: 0x0040, direction: direction, at: tick())
        }
        for _ in 0..<10_000 {
            records += SynthesizedHCI.attPDU([0x0A, 0x01, 0x00], handle: 0x0040, direction: .received, at: tick())
            records += SynthesizedHCI.attPDU([0x0B, 0x0F, 0x18], handle: 0x0040, direction: .sent, at: tick())
        }
        records.append(SynthesizedHCI.disconnectionComplete(handle: 0x0040, reason: 0x13, at: tick()))
        let file = try writeAll(records, as: .btsnoop(.hciUART))
        var pieces = ATTConversationPieceStream(reader: try CaptureReader(bytes: file), limits: .init(pieceCount: 64))
        var count = 0, pdus = 0
        while let piece = try pieces.next() {
            #expect(piece.offset == pdus)
            #expect(piece.conversation.pdus.count <= 64)
            #expect(piece.conversation.pdus.first.map { ATTOpcode($0.opcode ?? 0).kind == .request } ?? piece.isLast)
            pdus += piece.conversation.pdus.count
            count += 1
        }
        #expect(pdus == 20_004)
        #expect(count > 20_004 / 64)
        #expect(pieces.forcedCuts == 0)
        for side in [ReplaySession.Side.server, .client] {
            var session = ReplaySession(reader: try CaptureReader(bytes: file), side: side,
                                        limits: .init(pieceCount: 64))
            let step = try #require(try session.next())
            #expect(try session.next() == nil)
            #expect(step.pduCount == 20_004)
            #expect(step.report.matched == 10_002, "\(side)")
            #expect(step.report.diverged == 0, "\(side)")
        }
    }

    /// Divergences past the bound are counted, not kept: a conversation whose every read
    /// diverges keeps the number asked for and counts the rest.
    @Test func divergencesPastTheBoundAreCounted() throws {
        var records: [CaptureRecord] = []
        var clock: Int64 = 1_700_000_000_000_000
        func tick() -> Int64 { clock += 1_000; return clock }
        for _ in 0..<500 {
            records += SynthesizedHCI.attPDU([0x0A, 0x01, 0x00], handle: 0x0040, direction: .received, at: tick())
            records += SynthesizedHCI.attPDU([0x0B, 0x0F, 0x18], handle: 0x0040, direction: .sent, at: tick())
        }
        let file = try writeAll(records, as: .btsnoop(.hciUART))
        // A database where handle 0x0001 is a service of another UUID: every read diverges.
        let database = try AttributeDatabase(attributes: [
            Attribute(handle: AttributeHandle(1), type: BluetoothUUID(0x2800), permissions: .readOnly,
                      value: [0x0D, 0x18], groupEnd: AttributeHandle(1)),
        ])
        var session = ReplaySession(reader: try CaptureReader(bytes: file), side: .server, database: database,
                                    divergences: .init(perConversation: 10), limits: .init(pieceCount: 64))
        let step = try #require(try session.next())
        #expect(step.report.divergences.count == 10)
        #expect(step.report.diverged == 500)
        #expect(step.report.unkeptDivergences == 490)
        #expect(step.report.divergences.map(\.index) == Array(stride(from: 0, to: 20, by: 2)))
    }

    /// Connections that never end stay bounded: past 256 open conversations the oldest
    /// ends (counted), and past 4,096 connections the decoder forgets the oldest
    /// (counted), so a hostile capture cannot grow either table.
    @Test func connectionsThatNeverEndStayBounded() throws {
        var records: [CaptureRecord] = []
        var clock: Int64 = 1_700_000_000_000_000
        for handle in UInt16(1)...300 {
            clock += 1_000
            records += SynthesizedHCI.attPDU([0x0A, 0x01, 0x00], handle: handle, direction: .received, at: clock)
        }
        var pieces = ATTConversationPieceStream(reader: try CaptureReader(bytes: try writeAll(records, as: .btsnoop(.hciUART))))
        var ended = 0
        while let piece = try pieces.next() { if piece.isLast { ended += 1 } }
        #expect(ended == 300)
        #expect(pieces.closedEarly == 300 - 256)

        var decoder = CaptureDecoder()
        for controller in UInt16(0)..<2 {
            for handle in UInt16(0)..<3_000 {
                clock += 1_000
                var record = SynthesizedHCI.connectionComplete(handle: handle, isCentral: false, peerAddressType: 0,
                                                               peer: BluetoothAddress(0, 1, 2, 3, 4, 5), at: clock)
                record.controller = controller
                _ = decoder.process(record)
            }
        }
        #expect(decoder.openConnections.count == CaptureDecoder.maximumConnections)
        #expect(decoder.forgottenConnections == 6_000 - CaptureDecoder.maximumConnections)
        // The newest are kept.
        #expect(decoder.connection(controller: 1, handle: 2_999) != nil)
        #expect(decoder.connection(controller: 0, handle: 0) == nil)
    }
}
