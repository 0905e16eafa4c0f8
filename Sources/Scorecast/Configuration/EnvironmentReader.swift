import Foundation

/// One documented `SCORECAST_*` environment variable: its name, default and meaning.
/// `Configuration.settings` lists them all; `scorecast config` and the README print that list.
public struct SettingDescription: Sendable, Equatable {
    /// The variable's name, e.g. `SCORECAST_HTTP_PORT`.
    public let name: String
    /// The default as a user would write it, or a sentence when it is computed.
    public let defaultValue: String
    /// What the setting does.
    public let help: String
}

/// A configuration value that is missing its rules: names the variable and what is wrong,
/// never the value itself when the variable may hold a secret.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// Every problem found, one per variable.
    public let problems: [String]

    public var description: String {
        "invalid configuration:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}

/// Reads typed values from an environment dictionary, collecting every problem instead of
/// stopping at the first so that one start reports all mistakes.
struct EnvironmentReader {
    let environment: [String: String]
    private(set) var problems: [String] = []

    init(_ environment: [String: String]) { self.environment = environment }

    /// The raw value, with surrounding whitespace removed; an empty value counts as unset.
    func raw(_ name: String) -> String? {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    mutating func string(_ name: String, default fallback: String) -> String {
        raw(name) ?? fallback
    }

    mutating func optionalString(_ name: String) -> String? { raw(name) }

    mutating func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) -> Int {
        guard let text = raw(name) else { return fallback }
        guard let value = Int(text) else {
            problems.append("\(name) must be a whole number, got \"\(text)\"")
            return fallback
        }
        guard range.contains(value) else {
            problems.append("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
            return fallback
        }
        return value
    }

    mutating func boolean(_ name: String, default fallback: Bool) -> Bool {
        guard let text = raw(name) else { return fallback }
        switch text.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default:
            problems.append("\(name) must be true or false, got \"\(text)\"")
            return fallback
        }
    }

    mutating func choice<T>(_ name: String, default fallback: T, from choices: [String: T]) -> T {
        guard let text = raw(name) else { return fallback }
        guard let value = choices[text.lowercased()] else {
            problems.append("\(name) must be one of \(choices.keys.sorted().joined(separator: ", ")), got \"\(text)\"")
            return fallback
        }
        return value
    }

    mutating func list(_ name: String, default fallback: [String], allowed: Set<String>) -> [String] {
        guard let text = raw(name) else { return fallback }
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let unknown = items.filter { !allowed.contains($0) }
        if items.isEmpty || !unknown.isEmpty {
            problems.append("\(name) must be a comma-separated list of \(allowed.sorted().joined(separator: ", ")), got \"\(text)\"")
            return fallback
        }
        return items
    }

    /// A value that may hold a secret: checked for shape, never echoed in a problem.
    mutating func secretURL(_ name: String, validate: (String) -> Bool, expectation: String) -> String? {
        guard let text = raw(name) else { return nil }
        guard validate(text) else {
            problems.append("\(name) must be \(expectation) (value not shown: it may hold a password)")
            return nil
        }
        return text
    }

    mutating func problem(_ message: String) { problems.append(message) }
}
