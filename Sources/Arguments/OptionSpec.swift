/// One option a command accepts.
public struct OptionSpec: Sendable {
    /// The long name, without dashes (`bundle-id`).
    public let name: String
    /// The placeholder of its value (`ID`), or `nil` for a flag.
    public let value: String?
    /// Whether the command cannot run without it.
    public let required: Bool
    /// Whether it may be given more than once.
    public let repeatable: Bool
    /// One line of help.
    public let help: String

    /// An option that takes a value.
    public static func value(_ name: String, _ placeholder: String, required: Bool = false, repeatable: Bool = false, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, required: required, repeatable: repeatable, help: help)
    }

    /// A flag (no value).
    public static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, required: false, repeatable: false, help: help)
    }
}
