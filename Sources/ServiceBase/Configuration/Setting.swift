import Foundation

/// One `SCORECAST_*` environment variable: its name, the kind of value it takes (with its
/// default and allowed values) and what it does.
///
/// `Setting.all` is the only list of them. `Configuration.load` reads every value through it,
/// `scorecast config` prints it with the values in effect, and docs/operations.md's settings table
/// is generated from it (`scorecast config --markdown`; a test compares the two), so a default
/// or a range is written down exactly once.
package struct Setting: Sendable, Equatable {
    /// The shape of a value, with the default used when the variable is unset or empty.
    package enum Kind: Sendable, Equatable {
        /// A whole number within a range; `nil` default: unset unless given.
        case integer(default: Int?, range: ClosedRange<Int>)
        case boolean(default: Bool)
        /// One word of `options` (compared in lower case).
        case choice(default: String, options: [String])
        /// A comma-separated list of words from `options`.
        case list(default: [String], options: [String])
        /// Free text; `nil` default: unset unless given.
        case text(default: String?)
        /// A value that may hold a password: never printed, never echoed in an error.
        case secret
    }

    /// The variable's name, e.g. `SCORECAST_HTTP_PORT`.
    package let name: String
    package let kind: Kind
    /// What the setting does, in a sentence or two.
    package let help: String

    package init(_ name: String, _ kind: Kind, _ help: String) {
        self.name = name
        self.kind = kind
        self.help = help
    }

    /// The default as a user would write it, or `unset`.
    package var defaultText: String {
        switch kind {
        case .integer(let value, _): value.map(String.init) ?? "unset"
        case .boolean(let value): value ? "true" : "false"
        case .choice(let value, _): value
        case .list(let value, _): value.joined(separator: ",")
        case .text(let value): value ?? "unset"
        case .secret: "unset"
        }
    }

    /// The default of an integer setting (0 for any other kind, which `SettingTableTests`
    /// rules out for every setting read this way).
    package var integerDefault: Int {
        if case .integer(let value?, _) = kind { return value }
        return 0
    }

    /// The default of a boolean setting (`false` for any other kind).
    package var booleanDefault: Bool {
        if case .boolean(let value) = kind { return value }
        return false
    }

    /// Whether the value may be shown.
    package var isSecret: Bool { kind == .secret }
}

extension Setting {
    /// A setting's value in an environment, and where it came from.
    package struct Effective: Sendable, Equatable {
        package enum Source: String, Sendable { case environment, `default` }
        package let setting: Setting
        /// The value as given (`(hidden)` for a secret), or the default.
        package let value: String
        package let source: Source
    }

    /// Every setting with the value `environment` gives it, for `scorecast config`.
    package static func effective(in environment: [String: String]) -> [Effective] {
        all.map { setting in
            let given = environment[setting.name]?.trimmingCharacters(in: .whitespaces)
            guard let given, !given.isEmpty else {
                return Effective(setting: setting, value: setting.defaultText, source: .default)
            }
            return Effective(setting: setting, value: setting.isSecret ? "(hidden)" : given, source: .environment)
        }
    }

    /// docs/operations.md's settings table: a Markdown table of every setting.
    package static var markdownTable: String {
        var lines = ["| variable | default | meaning |", "|---|---|---|"]
        for setting in all {
            lines.append("| `\(setting.name)` | `\(setting.defaultText)` | \(setting.help)\(setting.rangeNote) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The allowed values, when the help does not already give them.
    private var rangeNote: String {
        switch kind {
        case .integer(_, let range): " Allowed: \(range.lowerBound)–\(range.upperBound)."
        case .choice(_, let options), .list(_, let options): " One of: \(options.joined(separator: ", "))."
        case .boolean, .text, .secret: ""
        }
    }
}
