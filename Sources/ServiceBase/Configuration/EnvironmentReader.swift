import Foundation

/// A configuration value that is missing its rules: names the variable and what is wrong,
/// never the value itself when the variable may hold a secret.
package struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// Every problem found, one per variable.
    package let problems: [String]

    package var description: String {
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

    /// A `.text` setting's value, or its default.
    mutating func string(_ setting: Setting) -> String {
        guard case .text(let fallback) = setting.kind else { return misread(setting, as: "text") ?? "" }
        return raw(setting.name) ?? fallback ?? ""
    }

    /// A `.text` setting's value, or nil when neither it nor a default is there.
    mutating func optionalString(_ setting: Setting) -> String? {
        guard case .text(let fallback) = setting.kind else { return misread(setting, as: "text") }
        return raw(setting.name) ?? fallback
    }

    mutating func integer(_ setting: Setting) -> Int {
        guard case .integer(let fallback, let range) = setting.kind else { return misread(setting, as: "an integer") ?? 0 }
        let name = setting.name
        guard let text = raw(name) else { return fallback ?? 0 }
        guard let value = Int(text) else {
            problems.append("\(name) must be a whole number, got \"\(text)\"")
            return fallback ?? 0
        }
        guard range.contains(value) else {
            problems.append("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
            return fallback ?? 0
        }
        return value
    }

    mutating func boolean(_ setting: Setting) -> Bool {
        guard case .boolean(let fallback) = setting.kind else { return misread(setting, as: "a boolean") ?? false }
        guard let text = raw(setting.name) else { return fallback }
        switch text.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default:
            problems.append("\(setting.name) must be true or false, got \"\(text)\"")
            return fallback
        }
    }

    /// A `.choice` setting's value mapped through `values`, whose keys are the setting's options.
    mutating func choice<T>(_ setting: Setting, _ values: [String: T]) -> T? {
        guard case .choice(let fallback, let options) = setting.kind, Set(options) == Set(values.keys) else {
            return misread(setting, as: "a choice of \(values.keys.sorted())")
        }
        guard let text = raw(setting.name) else { return values[fallback] }
        guard let value = values[text.lowercased()] else {
            problems.append("\(setting.name) must be one of \(options.joined(separator: ", ")), got \"\(text)\"")
            return values[fallback]
        }
        return value
    }

    mutating func list(_ setting: Setting) -> [String] {
        guard case .list(let fallback, let options) = setting.kind else { return misread(setting, as: "a list") ?? [] }
        guard let text = raw(setting.name) else { return fallback }
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let unknown = items.filter { !options.contains($0) }
        if items.isEmpty || !unknown.isEmpty {
            problems.append("\(setting.name) must be a comma-separated list of \(options.joined(separator: ", ")), got \"\(text)\"")
            return fallback
        }
        return items
    }

    /// A `.secret` setting: checked for shape, never echoed in a problem.
    mutating func secret(_ setting: Setting, validate: (String) -> Bool, expectation: String) -> String? {
        guard setting.isSecret else { return misread(setting, as: "a secret") }
        guard let text = raw(setting.name) else { return nil }
        guard validate(text) else {
            problems.append("\(setting.name) must be \(expectation) (value not shown: it may hold a password)")
            return nil
        }
        return text
    }

    /// A setting read as another kind than the table declares: a mistake in scorecast itself,
    /// reported like a bad value so that it cannot pass unnoticed (`SettingTableTests`).
    private mutating func misread<T>(_ setting: Setting, as kind: String) -> T? {
        problems.append("\(setting.name) is read as \(kind), but the settings table declares \(setting.kind) (a bug in scorecast)")
        return nil
    }

    mutating func problem(_ message: String) { problems.append(message) }
}
