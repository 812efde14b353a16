import Foundation

extension DatabaseJSON {
    /// The file's JSON value. A file that is not JSON says where it breaks (line, column
    /// and byte offset), since JSONSerialization's error carries no position here.
    static func parse(_ data: Data) throws(DatabaseError) -> Any {
        do { return try JSONSerialization.jsonObject(with: data) } catch {
            if let syntax = JSONSyntaxError.locate(in: data) { throw .syntax(syntax) }
            // Grammatical but refused (too deep, bad UTF-8...): Foundation's own detail.
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            throw .json(path: "$", reason: "not JSON: \(detail.prefix(200))")
        }
    }
}
