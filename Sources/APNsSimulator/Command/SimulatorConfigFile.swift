import Foundation
import JSON

/// Reads the `--config` JSON file of `scorecast apns-sim` (keys listed in `SimulatorCommand.helpText`).
/// Unknown keys are errors, so a typo never silently falls back to a default.
enum SimulatorConfigFile {
    static let keys: Set<String> = [
        "host", "adminHost", "sendPort", "managementPort", "adminPort", "stateDirectory", "certificatePath", "privateKeyPath",
        "channelLimit", "budgetPerHour", "noMessageStoredBudgetPerHour", "retryAfter", "allowsPriorityOneBroadcasts",
        "maxConcurrentStreams", "oneStreamUntilAuthenticated", "requestLogCapacity", "faults", "teams",
    ]
    static let teamKeys: Set<String> = ["teamID", "keyID", "publicKeyPath", "publicKeyPEM", "bundleIDs"]

    /// The configuration in the file at `path`, on top of the defaults. Relative key paths are
    /// resolved against the file's folder.
    static func load(path: String) throws(SimulatorError) -> SimulatorConfiguration {
        let text = try read(path)
        let root: JSONValue
        do {
            root = try JSONParser().parse(Array(text.utf8))
        } catch {
            throw .file(path: path, reason: "is not valid JSON: \(error)")
        }
        guard case .object(let members) = root else { throw .file(path: path, reason: "is not a JSON object") }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let reader = Reader(members: members, path: path, context: "")
        try reader.rejectUnknown(keys)
        var configuration = SimulatorConfiguration()
        if let value = try reader.string("host") { configuration.host = value }
        if let value = try reader.string("adminHost") { configuration.adminHost = value }
        if let value = try reader.integer("sendPort") { configuration.sendPort = value }
        if let value = try reader.integer("managementPort") { configuration.managementPort = value }
        if let value = try reader.integer("adminPort") { configuration.adminPort = value }
        if let value = try reader.string("stateDirectory") { configuration.stateDirectory = value }
        if let value = try reader.string("certificatePath") { configuration.certificatePath = resolve(value, in: folder) }
        if let value = try reader.string("privateKeyPath") { configuration.privateKeyPath = resolve(value, in: folder) }
        if let value = try reader.integer("channelLimit") { configuration.channelLimit = value }
        if reader.has("budgetPerHour") { configuration.budgetPerHour = try reader.integer("budgetPerHour") }
        if reader.has("noMessageStoredBudgetPerHour") {
            configuration.noMessageStoredBudgetPerHour = try reader.integer("noMessageStoredBudgetPerHour")
        }
        if let value = members["retryAfter"] {
            let text = value.stringValue ?? value.integerValue.map(String.init)
            guard let text, let policy = RetryAfterPolicy(argument: text) else {
                throw .file(path: path, reason: "retryAfter must be \"none\", \"auto\" or a number of seconds")
            }
            configuration.retryAfter = policy
        }
        if let value = try reader.bool("allowsPriorityOneBroadcasts") { configuration.allowsPriorityOneBroadcasts = value }
        if let value = try reader.integer("maxConcurrentStreams") { configuration.maxConcurrentStreams = value }
        if let value = try reader.bool("oneStreamUntilAuthenticated") { configuration.oneStreamUntilAuthenticated = value }
        if let value = try reader.integer("requestLogCapacity") { configuration.requestLogCapacity = value }
        if let value = members["faults"] {
            guard case .object(let faultMembers) = value else { throw .file(path: path, reason: "faults must be an object") }
            let faultReader = Reader(members: faultMembers, path: path, context: "faults.")
            try faultReader.rejectUnknown(AdminBody.faultKeys)
            var faults = SimulatorFaults()
            if let value = try faultReader.integer("failNext") { faults.failNext = value }
            if let value = try faultReader.number("failPercent") { faults.failPercent = value }
            if let value = try faultReader.integer("failStatus") { faults.failStatus = value }
            faults.goAwayAfterStreams = try faultReader.integer("goAwayAfterStreams")
            if let value = try faultReader.integer("resetNext") { faults.resetNext = value }
            if let value = try faultReader.number("resetPercent") { faults.resetPercent = value }
            if let value = try faultReader.integer("latencyMilliseconds") { faults.latencyMilliseconds = value }
            if let value = try faultReader.bool("blackHole") { faults.blackHole = value }
            if let value = try faultReader.bool("holdAnswers") { faults.holdAnswers = value }
            faults.maxConcurrentStreams = try faultReader.integer("maxConcurrentStreams")
            configuration.faults = faults
        }
        if let value = members["teams"] {
            guard case .array(let teams) = value else { throw .file(path: path, reason: "teams must be an array") }
            for (index, entry) in teams.enumerated() {
                guard case .object(let teamMembers) = entry else { throw .file(path: path, reason: "teams[\(index)] must be an object") }
                let teamReader = Reader(members: teamMembers, path: path, context: "teams[\(index)].")
                try teamReader.rejectUnknown(teamKeys)
                guard let teamID = try teamReader.string("teamID"), let keyID = try teamReader.string("keyID") else {
                    throw .file(path: path, reason: "teams[\(index)] needs teamID and keyID")
                }
                let pem: String
                if let inline = try teamReader.string("publicKeyPEM") {
                    pem = inline
                } else if let keyPath = try teamReader.string("publicKeyPath") {
                    pem = try read(resolve(keyPath, in: folder))
                } else {
                    throw .file(path: path, reason: "teams[\(index)] needs publicKeyPath or publicKeyPEM")
                }
                guard case .array(let bundles)? = teamMembers["bundleIDs"] else {
                    throw .file(path: path, reason: "teams[\(index)].bundleIDs must be an array of strings")
                }
                let bundleIDs = try bundles.map { (bundle: JSONValue) throws(SimulatorError) -> String in
                    guard let text = bundle.stringValue else { throw .file(path: path, reason: "teams[\(index)].bundleIDs must be strings") }
                    return text
                }
                configuration.teams.append(SimulatorTeam(teamID: teamID, keyID: keyID, publicKeyPEM: pem, bundleIDs: bundleIDs))
            }
        }
        return configuration
    }

    /// The text of the file at `path`.
    static func read(_ path: String) throws(SimulatorError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw .file(path: path, reason: "cannot be read") }
        return String(decoding: data, as: UTF8.self)
    }

    private static func resolve(_ path: String, in folder: URL) -> String {
        path.hasPrefix("/") ? path : folder.appendingPathComponent(path).path
    }

    /// Typed access to an object's members with errors naming `context` + key.
    private struct Reader {
        let members: [String: JSONValue]
        let path: String
        let context: String

        func has(_ key: String) -> Bool { members[key] != nil }

        func rejectUnknown(_ allowed: Set<String>) throws(SimulatorError) {
            for key in members.keys.sorted() where !allowed.contains(key) {
                throw .file(path: path, reason: "unknown key \(context)\(key)")
            }
        }

        func string(_ key: String) throws(SimulatorError) -> String? {
            guard let value = members[key], value != .null else { return nil }
            guard let text = value.stringValue else { throw .file(path: path, reason: "\(context)\(key) must be a string") }
            return text
        }

        func integer(_ key: String) throws(SimulatorError) -> Int? {
            guard let value = members[key], value != .null else { return nil }
            guard let number = value.integerValue else { throw .file(path: path, reason: "\(context)\(key) must be a whole number") }
            return number
        }

        func number(_ key: String) throws(SimulatorError) -> Double? {
            guard let value = members[key], value != .null else { return nil }
            guard let number = value.doubleValue else { throw .file(path: path, reason: "\(context)\(key) must be a number") }
            return number
        }

        func bool(_ key: String) throws(SimulatorError) -> Bool? {
            guard let value = members[key], value != .null else { return nil }
            guard let flag = value.boolValue else { throw .file(path: path, reason: "\(context)\(key) must be true or false") }
            return flag
        }
    }
}
