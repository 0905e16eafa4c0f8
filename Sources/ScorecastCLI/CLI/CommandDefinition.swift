import Arguments

/// One `scorecast` command: the words that name it, its options, and what it does.
package struct CommandDefinition: Sendable {
    /// The command words, e.g. `["channels", "create"]`.
    package let words: [String]
    /// One line for the command list.
    package let summary: String
    /// The options it accepts (`--help` is always accepted).
    package let options: [OptionSpec]
    /// Positional arguments, for the usage line (e.g. `ID`).
    package let positionals: [String]
    /// More help: what it does, examples.
    package let details: String
    /// Whether the command parses its own arguments (they arrive as `positionals`).
    package let rawArguments: Bool
    /// Runs it; throws `CommandError` (or any error, mapped by `CLI`).
    package let run: @Sendable (ParsedArguments, CommandContext) async throws -> Void

    /// Creates a command.
    package init(
        _ words: [String], summary: String, options: [OptionSpec] = [], positionals: [String] = [],
        rawArguments: Bool = false, details: String = "",
        run: @escaping @Sendable (ParsedArguments, CommandContext) async throws -> Void
    ) {
        self.rawArguments = rawArguments
        self.words = words
        self.summary = summary
        self.options = options
        self.positionals = positionals
        self.details = details
        self.run = run
    }

    /// Parses the arguments after the command words: options as declared, at most as many
    /// positionals as declared (all of them for a command that parses its own).
    package func parse(_ arguments: [String]) throws(ArgumentError) -> ParsedArguments {
        try ParsedArguments(
            rawArguments ? ["--"] + arguments : arguments, options: options,
            positionalLimit: rawArguments ? nil : positionals.count)
    }

    /// The full help text of this command.
    package var help: String {
        if rawArguments { return details }
        var lines = ["usage: scorecast \(words.joined(separator: " "))"
            + (options.isEmpty ? "" : " [options]")
            + positionals.map { " \($0)" }.joined(), "", summary]
        if !details.isEmpty { lines += ["", details] }
        if !options.isEmpty {
            lines += ["", "options:"]
            let rendered = options.map { option -> (String, String) in
                let left = "--\(option.name)" + (option.value.map { " \($0)" } ?? "")
                let notes = [option.required ? "required" : nil, option.repeatable ? "repeatable" : nil].compactMap { $0 }
                return (left, option.help + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"))
            }
            let width = (rendered.map(\.0.count).max() ?? 0) + 2
            for (left, right) in rendered {
                lines.append("  " + left.padding(toLength: width, withPad: " ", startingAt: 0) + right)
            }
        }
        lines += ["", ExitCode.legend]
        return lines.joined(separator: "\n")
    }
}

import Foundation
