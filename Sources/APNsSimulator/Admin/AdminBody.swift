import HTTPServer
import JSON

/// Reading admin request bodies strictly: a JSON object with known keys only, each of the
/// right type, errors naming the field.
enum AdminBody {
    /// The keys `POST /faults` accepts.
    static let faultKeys: Set<String> = [
        "failNext", "failPercent", "failStatus", "goAwayAfterStreams", "resetNext", "resetPercent",
        "latencyMilliseconds", "blackHole", "holdAnswers", "maxConcurrentStreams",
    ]

    /// The body as a JSON object whose keys are all in `allowed`.
    static func object(_ request: HTTPRequest, allowed: Set<String>) throws -> [String: JSONValue] {
        let members = try request.jsonObject()
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw Problem.unprocessable(
                "unknown field \(key); expected one of \(allowed.sorted().joined(separator: ", "))",
                errors: [.init(field: key, detail: "is not a known field")])
        }
        return members
    }

    /// The body of `POST /teams`: every member of ``SimulatorTeam`` required, nothing else.
    static func team(_ request: HTTPRequest) throws -> SimulatorTeam {
        let body = try object(request, allowed: ["teamID", "keyID", "publicKeyPEM", "bundleIDs"])
        return SimulatorTeam(
            teamID: try string(body, "teamID"), keyID: try string(body, "keyID"),
            publicKeyPEM: try string(body, "publicKeyPEM"), bundleIDs: try strings(body, "bundleIDs"))
    }

    /// The string at `key`, required.
    static func string(_ body: [String: JSONValue], _ key: String) throws -> String {
        guard let value = body[key] else {
            throw Problem.unprocessable("\(key) is required", errors: [.init(field: key, detail: "is required")])
        }
        guard let text = value.stringValue else {
            throw Problem.unprocessable("\(key) must be a string", errors: [.init(field: key, detail: "must be a string, got \(value.typeName)")])
        }
        return text
    }

    /// The array of strings at `key`, required; an error names the first element that is not a string.
    static func strings(_ body: [String: JSONValue], _ key: String) throws -> [String] {
        guard let value = body[key] else {
            throw Problem.unprocessable("\(key) is required", errors: [.init(field: key, detail: "is required")])
        }
        guard let elements = value.arrayValue else {
            throw Problem.unprocessable("\(key) must be an array of strings", errors: [.init(field: key, detail: "must be an array, got \(value.typeName)")])
        }
        return try elements.enumerated().map { index, element in
            guard let text = element.stringValue else {
                let field = "\(key)[\(index)]"
                throw Problem.unprocessable("\(field) must be a string", errors: [.init(field: field, detail: "must be a string, got \(element.typeName)")])
            }
            return text
        }
    }

    /// The integer at `key`: `nil` when absent or `null` (an error if `required`), an error when
    /// it is not a whole number.
    static func integer(_ body: [String: JSONValue], _ key: String, required: Bool) throws -> Int? {
        guard let value = body[key], value != .null else {
            if required { throw Problem.unprocessable("\(key) is required", errors: [.init(field: key, detail: "is required")]) }
            return nil
        }
        guard let integer = value.integerValue else {
            throw Problem.unprocessable("\(key) must be a whole number", errors: [.init(field: key, detail: "must be a whole number")])
        }
        return integer
    }

    /// The number at `key`, or an error when it is not one.
    static func number(_ body: [String: JSONValue], _ key: String) throws -> Double? {
        guard let value = body[key] else { return nil }
        guard let number = value.doubleValue else {
            throw Problem.unprocessable("\(key) must be a number", errors: [.init(field: key, detail: "must be a number")])
        }
        return number
    }

    /// `faults` with the members of `patch` applied (`null` clears the optional ones).
    static func applyFaults(_ patch: [String: JSONValue], to faults: SimulatorFaults) throws -> SimulatorFaults {
        var faults = faults
        if let value = try integer(patch, "failNext", required: false) { faults.failNext = value }
        if let value = try number(patch, "failPercent") { faults.failPercent = value }
        if let value = try integer(patch, "failStatus", required: false) { faults.failStatus = value }
        if patch["goAwayAfterStreams"] != nil { faults.goAwayAfterStreams = try integer(patch, "goAwayAfterStreams", required: false) }
        if let value = try integer(patch, "resetNext", required: false) { faults.resetNext = value }
        if let value = try number(patch, "resetPercent") { faults.resetPercent = value }
        if let value = try integer(patch, "latencyMilliseconds", required: false) { faults.latencyMilliseconds = value }
        if let value = patch["blackHole"] {
            guard let flag = value.boolValue else {
                throw Problem.unprocessable("blackHole must be true or false", errors: [.init(field: "blackHole", detail: "must be a boolean")])
            }
            faults.blackHole = flag
        }
        if let value = patch["holdAnswers"] {
            guard let flag = value.boolValue else {
                throw Problem.unprocessable("holdAnswers must be true or false", errors: [.init(field: "holdAnswers", detail: "must be a boolean")])
            }
            faults.holdAnswers = flag
        }
        if patch["maxConcurrentStreams"] != nil { faults.maxConcurrentStreams = try integer(patch, "maxConcurrentStreams", required: false) }
        return faults
    }

    /// Runs a control action, turning a `SimulatorError` into a `422` problem.
    static func control(_ action: () throws(SimulatorError) -> Void) throws {
        do {
            try action()
        } catch {
            throw Problem.unprocessable(error.description)
        }
    }
}
