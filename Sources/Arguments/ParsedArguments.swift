/// A command line checked against a command's options: `--name value`, `--name=value`,
/// flags, and positional arguments. Unknown options and missing values are usage errors.
///
/// The project's one argument parser: the `scorecast` CLI, `scorecast apns-sim` and the
/// benchmark all read their command lines with it.
public struct ParsedArguments: Sendable {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Arguments that are not options, in order.
    public private(set) var positionals: [String] = []
    /// Every option in the order given, with its value (`nil` for a flag): for commands where
    /// a later option overrides an earlier one of another kind.
    public private(set) var given: [(name: String, value: String?)] = []

    /// Parses `arguments` (everything after the command words) against `options`; more than
    /// `positionalLimit` positional arguments (when given) is a usage error, so a stray word is
    /// never silently ignored.
    public init(_ arguments: [String], options: [OptionSpec], positionalLimit: Int? = nil) throws(ArgumentError) {
        let specs = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs[name] else {
                throw .usage("unknown option --\(name)" + Suggestion.clause(for: name, among: options.map(\.name), prefix: "--"))
            }
            if spec.value == nil {
                if inlineValue != nil { throw .usage("--\(name) takes no value") }
                flags.insert(name)
                given.append((name, nil))
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw .usage("--\(name) needs a value (\(spec.value!))")
                }
                value = arguments[index]
                index += 1
            }
            if values[name] != nil && !spec.repeatable { throw .usage("--\(name) given more than once") }
            values[name, default: []].append(value)
            given.append((name, value))
        }
        if let positionalLimit, positionals.count > positionalLimit {
            let stray = positionals.dropFirst(positionalLimit).map { "'\($0)'" }.joined(separator: " ")
            throw .usage(positionalLimit == 0
                ? "unexpected argument \(stray): this command takes options only (see --help)"
                : "unexpected argument \(stray) after the first \(positionalLimit) (see --help)")
        }
        for spec in options where spec.required && values[spec.name] == nil {
            throw .usage("missing --\(spec.name) \(spec.value ?? "")")
        }
    }

    /// The value of an option, if given.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of a required option (the parser has checked it is there).
    public func required(_ name: String) throws(ArgumentError) -> String {
        guard let value = values[name]?.last else { throw .usage("missing --\(name)") }
        return value
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(ArgumentError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .usage("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return number
    }

    /// A value from a closed set.
    public func choice(_ name: String, from choices: [String]) throws(ArgumentError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            throw .usage("--\(name) must be one of \(choices.joined(separator: ", ")), got \"\(text)\"")
        }
        return text
    }
}
