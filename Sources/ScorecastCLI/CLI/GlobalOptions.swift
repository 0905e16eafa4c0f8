import Arguments
import ServiceBase

/// The options every command shares, taken out of the command line before the command is
/// looked up: `--env-file PATH` (anywhere before a `--`) adds the variables of an environment
/// file, read by systemd's `EnvironmentFile=` rules, over the inherited environment. A leading
/// option that is not a global one is refused with the closest global's name.
struct GlobalOptions {
    /// The global options' names, for suggestions (`--version` and `--help` are handled by `CLI`).
    static let names = ["env-file", "version", "help"]

    /// The command line without the global options.
    let arguments: [String]
    /// The environment the command runs with.
    let environment: [String: String]

    init(_ arguments: [String], environment: [String: String]) throws {
        var remaining: [String] = []
        var files: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                remaining += arguments[index...]
                break
            }
            if argument == "--env-file" {
                guard index + 1 < arguments.endIndex else { throw ArgumentError("--env-file needs a value (PATH)") }
                files.append(arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix("--env-file=") {
                files.append(String(argument.dropFirst("--env-file=".count)))
            } else {
                remaining.append(argument)
            }
            index += 1
        }
        if let first = remaining.first, first.hasPrefix("--"), !["--version", "--help"].contains(first) {
            let name = String(first.dropFirst(2).prefix { $0 != "=" })
            throw ArgumentError("unknown option --\(name)" + Suggestion.clause(for: name, among: Self.names, prefix: "--"))
        }
        var merged = environment
        for path in files {
            merged.merge(try EnvironmentFile.load(path: path).values) { _, file in file }
        }
        self.arguments = remaining
        self.environment = merged
    }
}
