import SenseiModels

/// Labels as clients send them: in bodies (`"labels": {…}`) and in the
/// `label=KEY:VALUE` filter of `GET /sensors`.
extension RequestDecoding {
    /// `labels` of a `POST /sensors`: an object of strings that follows
    /// `SensorLabels`' rules; nil when absent.
    static func labels(in object: [String: JSONValue]) throws(APIError) -> [String: String]? {
        guard let patch = try labelPatch(in: object, allowingNull: false) else { return nil }
        return patch.compactMapValues { $0 }
    }

    /// `labels` of a `PATCH`, a merge patch: a string sets a key, null removes it.
    static func labelPatch(in object: [String: JSONValue], allowingNull: Bool = true) throws(APIError) -> LabelPatch? {
        guard let value = object["labels"], !value.isNull else { return nil }
        guard let members = value.objectValue else {
            throw .unprocessable("labels must be an object of string values, found \(value.typeName)")
        }
        var patch: LabelPatch = [:]
        for key in members.keys.sorted() {
            let member = members[key]!
            if let problem = SensorLabels.problem(withKey: key) { throw .unprocessable("labels: \(problem)") }
            if allowingNull && member.isNull {
                patch[key] = .some(nil)
                continue
            }
            guard let text = member.stringValue else {
                throw .unprocessable("labels.\(key) must be a string\(allowingNull ? " or null" : ""), found \(member.typeName)")
            }
            if let problem = SensorLabels.problem(withValue: text) { throw .unprocessable("labels.\(key): \(problem)") }
            patch[key] = text
        }
        if !allowingNull && patch.count > SensorLabels.maximumCount {
            throw .unprocessable("labels: at most \(SensorLabels.maximumCount) labels, found \(patch.count)")
        }
        return patch
    }

    /// The `label=KEY:VALUE` arguments of a request (repeatable; all must match).
    static func labelFilter(_ request: Request) throws(APIError) -> [(key: String, value: String)] {
        var filter: [(key: String, value: String)] = []
        for argument in request.queryValues("label") {
            guard let colon = argument.firstIndex(of: ":") else {
                throw .badRequest("label must be KEY:VALUE, found '\(argument)'")
            }
            let key = String(argument[..<colon])
            if let problem = SensorLabels.problem(withKey: key) { throw .badRequest("label: \(problem)") }
            filter.append((key, String(argument[argument.index(after: colon)...])))
        }
        return filter
    }
}
