import ATT
import Foundation

extension DatabaseJSON {
    /// The services of a database file in the structured `services` form, as
    /// definitions to publish (a peripheral manager adds GAP and GATT itself, so the
    /// flat `attributes` form, which fixes every handle, cannot be used this way).
    public static func serviceDefinitions(from data: Data) throws(DatabaseError) -> [ServiceDefinition] {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .json(path: "$", reason: "not JSON: \(error.localizedDescription)")
        }
        guard let object = root as? [String: Any] else { throw .json(path: "$", reason: "expected an object") }
        guard let services = object["services"] else {
            let reason = object["attributes"] != nil
                ? "the flat \"attributes\" form fixes every handle; serving needs the \"services\" form"
                : object["databases"] != nil
                ? "a file of named databases; serving needs one database in the \"services\" form"
                : "expected \"services\""
            throw .json(path: "$", reason: reason)
        }
        guard let list = services as? [Any] else { throw .json(path: "$.services", reason: "expected an array") }
        var definitions: [ServiceDefinition] = []
        for (i, item) in list.enumerated() { definitions.append(try service(item, path: "$.services[\(i)]")) }
        return definitions
    }
}
