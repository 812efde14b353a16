import ATT
import Foundation

extension DatabaseJSON {
    /// The services of a database file in the structured `services` form, as
    /// definitions to publish (a peripheral manager adds GAP and GATT itself, so the
    /// flat `attributes` form, which fixes every handle, cannot be used this way).
    public static func serviceDefinitions(from data: Data) throws(DatabaseError) -> [ServiceDefinition] {
        let root = try parse(data)
        guard let object = root as? [String: Any] else { throw .json(path: "$", reason: "expected an object") }
        guard let services = object["services"] else {
            let reason = object["attributes"] != nil
                ? "the flat \"attributes\" form fixes every handle; serving needs the \"services\" form"
                : object["databases"] != nil
                ? "a file of named databases; serving needs one database in the \"services\" form"
                : "expected \"services\""
            throw .json(path: "$", reason: reason)
        }
        var problems = DatabaseProblemList()
        let definitions = serviceList(services, path: "$.services", &problems)
        // Placed as in an empty database, so handles that collide with one another, go
        // backwards or run past 0xffff are reported here, at their paths; a manager that
        // publishes services of its own first (GAP, GATT) reports clashes with those.
        if problems.total == 0 {
            do { _ = try AttributeDatabase(services: definitions) } catch {
                if case let .placement(p, reason) = error { problems.add("$." + p, reason) } else { problems.add("$", error.description) }
            }
        }
        if let error = problems.error { throw error }
        return definitions
    }
}
