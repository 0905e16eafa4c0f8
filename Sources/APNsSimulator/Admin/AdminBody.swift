import HTTPServer

/// Reading admin request bodies strictly: a JSON object with known keys only, each of the
/// right type, errors naming the field.
enum AdminBody {
    /// The keys `POST /faults` accepts.
    static let faultKeys: Set<String> = [
        "failNext", "failPercent", "failStatus", "goAwayAfterStreams", "resetNext", "resetPercent",
        "latencyMilliseconds", "blackHole", "maxConcurrentStreams",
    ]

    /// The body as a JSON object whose keys are all in `allowed`.
    static func object(_ request: HTTPRequest, allowed: Set<String>) throws -> [String: JSONValue] {
        guard !request.body.isEmpty else { throw Problem.badRequest("the request body is empty; expected a JSON object") }
        guard let value = JSONValue.parse(request.body) else { throw Problem.badRequest("the request body is not valid JSON") }
        guard case .object(let members) = value else { throw Problem.unprocessable("the request body must be a JSON object") }
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw Problem.unprocessable(
                "unknown field \(key); expected one of \(allowed.sorted().joined(separator: ", "))",
                errors: [.init(field: key, detail: "is not a known field")])
        }
        return members
    }

    /// The integer at `key`: `nil` when absent or `null` (an error if `required`), an error when
    /// it is not a whole number.
    static func integer(_ body: [String: JSONValue], _ key: String, required: Bool) throws -> Int? {
        guard let value = body[key], value != .null else {
            if required { throw Problem.unprocessable("\(key) is required", errors: [.init(field: key, detail: "is required")]) }
            return nil
        }
        guard let integer = value.integer else {
            throw Problem.unprocessable("\(key) must be a whole number", errors: [.init(field: key, detail: "must be a whole number")])
        }
        return integer
    }

    /// The number at `key`, or an error when it is not one.
    static func number(_ body: [String: JSONValue], _ key: String) throws -> Double? {
        guard let value = body[key] else { return nil }
        guard let number = value.number else {
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
            guard let flag = value.bool else {
                throw Problem.unprocessable("blackHole must be true or false", errors: [.init(field: "blackHole", detail: "must be a boolean")])
            }
            faults.blackHole = flag
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
