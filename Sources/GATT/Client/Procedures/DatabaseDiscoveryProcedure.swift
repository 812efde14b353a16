import ATT

/// Discovers a whole database, or one range of it after a Service Changed indication,
/// in the order BlueZ uses (so that the conformance vectors' start-up PDUs match byte for
/// byte): Server Supported Features; primary services; secondary services; includes and
/// then characteristics across the span of all services found; descriptors of each
/// characteristic, reading Characteristic Extended Properties where present. A full
/// discovery then writes Client Supported Features, reads the Database Hash and
/// subscribes to Service Changed, when the server has them.
///
/// With a cached database whose hash is known, the procedure first reads the server's
/// Database Hash: when it matches, the cache stands and nothing else is read.
struct DatabaseDiscoveryProcedure: ClientProcedure {
    enum Stage: Sendable {
        case validateHash, serverFeatures, primaries, secondaries, includes, characteristics
        case descriptors(Int), extendedProperties(Int), clientFeatures, databaseHash, serviceChanged, done
    }

    let range: AttributeHandleRange
    let isFull: Bool
    let cached: DiscoveredDatabase?
    var stage: Stage
    var sub: (any ClientProcedure)?
    var database = DiscoveredDatabase()
    /// The characteristic list, flattened while descriptors are discovered: (service
    /// index, characteristic index).
    var characteristicIndex: [(Int, Int)] = []

    /// Discovers the whole database; with `cached`, only if the Database Hash changed.
    init(cached: DiscoveredDatabase? = nil) {
        range = .all
        isFull = true
        self.cached = cached?.databaseHash == nil ? nil : cached
        stage = self.cached == nil ? .serverFeatures : .validateHash
    }

    /// Discovers the services in one range (after Service Changed).
    init(range: AttributeHandleRange) {
        self.range = range
        isFull = false
        cached = nil
        stage = .primaries
    }

    var isDatabaseDiscovery: Bool { true }

    mutating func start(_ context: ProcedureContext) -> ProcedureStep {
        run(stage, context)
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        // Take the sub-procedure out before it mutates: were `sub` to keep a second
        // reference, each response would copy everything found so far (quadratic work
        // against a server that answers one service per response).
        guard var current = sub.take() else { return .violation(.unsolicitedResponse, pdu, bytes) }
        let step = current.receive(pdu, bytes: bytes, context)
        guard case let .finish(result) = step else {
            sub = current
            return step
        }
        if let end = absorb(result) { return end }
        return run(following(stage), context)
    }

    /// Starts the sub-procedure of a stage, skipping stages with nothing to do. A loop,
    /// not recursion: a database of thousands of characteristics without descriptors
    /// skips thousands of stages in one go.
    mutating func run(_ first: Stage, _ context: ProcedureContext) -> ProcedureStep {
        var next = first
        while true {
            stage = next
            guard var procedure = procedure(for: next) else {
                if case .done = next { return .finish(.success(.database(database))) }
                next = following(next)
                continue
            }
            let step = procedure.start(context)
            guard case let .finish(result) = step else {
                sub = procedure
                return step
            }
            if let end = absorb(result) { return end }
            next = following(stage)
        }
    }

    func procedure(for stage: Stage) -> (any ClientProcedure)? {
        switch stage {
        case .validateHash:
            return ReadUsingCharacteristicUUIDProcedure(uuid: GATTAttributeType.databaseHash, range: .all, firstResponseOnly: true)
        case .serverFeatures:
            return isFull ? ReadUsingCharacteristicUUIDProcedure(uuid: GATTAttributeType.serverSupportedFeatures, range: .all, firstResponseOnly: true) : nil
        case .primaries:
            return DiscoverServicesProcedure(range: range, primary: true)
        case .secondaries:
            return DiscoverServicesProcedure(range: range, primary: false)
        case .includes:
            return span.map { FindIncludedServicesProcedure(range: $0) }
        case .characteristics:
            return span.map { DiscoverCharacteristicsProcedure(range: $0) }
        case let .descriptors(i):
            guard i < characteristicIndex.count else { return nil }
            let (s, c) = characteristicIndex[i]
            return database.services[s].characteristics[c].descriptorRange.map { DiscoverDescriptorsProcedure(range: $0) }
        case let .extendedProperties(i):
            let (s, c) = characteristicIndex[i]
            let ch = database.services[s].characteristics[c]
            return ch.descriptors.first { $0.uuid == GATTAttributeType.characteristicExtendedProperties }
                .map { ReadCharacteristicValueProcedure(handle: $0.handle) }
        case .clientFeatures:
            guard isFull, let ch = database.characteristic(uuid: GATTAttributeType.clientSupportedFeatures),
                  clientSupportedFeatures != 0 else { return nil }
            return WriteCharacteristicValueProcedure(handle: ch.valueHandle, value: [clientSupportedFeatures])
        case .databaseHash:
            guard isFull, let ch = database.characteristic(uuid: GATTAttributeType.databaseHash) else { return nil }
            return ReadCharacteristicValueProcedure(handle: ch.valueHandle)
        case .serviceChanged:
            guard isFull, subscribesToServiceChanged, let ch = database.characteristic(uuid: GATTAttributeType.serviceChanged),
                  ch.properties.contains(.indicate), let cccd = ch.clientConfigurationHandle else { return nil }
            return WriteCharacteristicValueProcedure(handle: cccd, value: [0x02, 0x00])
        case .done:
            return nil
        }
    }

    /// Set from the configuration when the procedure is created by the engine.
    var clientSupportedFeatures: UInt8 = 0
    var subscribesToServiceChanged = false

    /// From the lowest service start to the highest service end.
    var span: AttributeHandleRange? {
        guard let first = database.services.first else { return nil }
        let end = database.services.map(\.handleRange.end).max() ?? first.handleRange.end
        return AttributeHandleRange(start: first.handleRange.start, end: end)
    }

    func following(_ stage: Stage) -> Stage {
        switch stage {
        case .validateHash: .serverFeatures
        case .serverFeatures: .primaries
        case .primaries: .secondaries
        case .secondaries: .includes
        case .includes: .characteristics
        case let .descriptors(i): i < characteristicIndex.count ? .extendedProperties(i) : (isFull ? .clientFeatures : .done)
        case let .extendedProperties(i): .descriptors(i + 1)
        case .characteristics: .descriptors(0)
        case .clientFeatures: .databaseHash
        case .databaseHash: .serviceChanged
        case .serviceChanged, .done: .done
        }
    }

    /// Takes in the result of the current stage's sub-procedure; returns the step that
    /// ends the whole procedure, or nil to go on with the following stage.
    mutating func absorb(_ result: Result<GATTClientResponse, GATTClientError>) -> ProcedureStep? {
        sub = nil
        switch (stage, result) {
        case let (.validateHash, .success(.handleValues(values))):
            if let cached, values.first?.value == cached.databaseHash {
                return .finish(.success(.database(cached)))
            }
        case (.validateHash, _):
            break
        case let (.serverFeatures, .success(.handleValues(values))):
            database.serverSupportedFeatures = values.first?.value
        case (.serverFeatures, _):
            // A server without the characteristic answers Attribute Not Found; any other
            // answer only means the features stay unknown.
            break
        case let (.primaries, .success(.services(found))), let (.secondaries, .success(.services(found))):
            database.insert(found)
        case (.secondaries, .failure(.att)):
            break
        case let (.includes, .success(.includes(found))):
            for include in found {
                if let s = database.serviceIndex(containing: include.handle) {
                    database.services[s].includes.append(include)
                }
            }
        case let (.characteristics, .success(.characteristics(found))):
            assign(found)
        case let (.descriptors(i), .success(.descriptors(found))):
            let (s, c) = characteristicIndex[i]
            database.services[s].characteristics[c].descriptors = found
        case let (.extendedProperties(i), .success(.value(v))):
            let (s, c) = characteristicIndex[i]
            if v.count >= 2 { database.services[s].characteristics[c].extendedProperties = UInt16(v[0]) | UInt16(v[1]) << 8 }
        case (.extendedProperties, _), (.clientFeatures, _), (.serviceChanged, _):
            // Optional steps: a refusal leaves the database as discovered.
            break
        case let (.databaseHash, .success(.value(v))):
            database.databaseHash = v
        case (.databaseHash, _):
            break
        case let (_, .failure(error)):
            return .fail(error)
        default:
            break
        }
        return nil
    }

    /// Places characteristics in their services and works out where each ends: before
    /// the next declaration, or at the end of its service.
    mutating func assign(_ found: [DiscoveredCharacteristic]) {
        for var ch in found {
            guard let s = database.serviceIndex(containing: ch.declarationHandle) else { continue }
            ch.endHandle = database.services[s].handleRange.end
            if let previous = database.services[s].characteristics.indices.last {
                let end = AttributeHandle(ch.declarationHandle.rawValue - 1)
                database.services[s].characteristics[previous].endHandle = end
            }
            database.services[s].characteristics.append(ch)
        }
        characteristicIndex = []
        characteristicIndex.reserveCapacity(found.count)
        for s in database.services.indices {
            for c in database.services[s].characteristics.indices { characteristicIndex.append((s, c)) }
        }
    }
}
