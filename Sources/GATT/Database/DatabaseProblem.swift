/// One thing wrong with a database definition, and where: a JSON path such as
/// `$.services[2].characteristics[0].max_length`.
public struct DatabaseProblem: Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// The problems found while loading a database, so one run reports all of them: the first
/// ``shownLimit`` are kept and the rest only counted, so the error stays a few lines
/// however broken the file is.
struct DatabaseProblemList {
    static let shownLimit = 10
    private(set) var shown: [DatabaseProblem] = []
    private(set) var total = 0

    mutating func add(_ path: String, _ reason: String) {
        total += 1
        if shown.count < Self.shownLimit { shown.append(DatabaseProblem(path: path, reason: reason)) }
    }

    /// Adds a thrown error: a path error as it is, a list merged, anything else at `path`.
    mutating func add(_ error: DatabaseError, at path: String) {
        switch error {
        case let .json(p, r): add(p, r)
        case let .problems(list, count):
            for p in list { add(p.path, p.reason) }
            total += count - list.count
        default: add(path, error.description)
        }
    }

    /// Nothing when there is no problem; a single one as a path error; several as a list.
    var error: DatabaseError? {
        switch total {
        case 0: nil
        case 1: .json(path: shown[0].path, reason: shown[0].reason)
        default: .problems(shown, total: total)
        }
    }
}
