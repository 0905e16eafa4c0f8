import Foundation

/// An environment file read the way systemd's `EnvironmentFile=` reads it, so that the CLI
/// (`scorecast --env-file /etc/scorecast/scorecast.env …`) sees exactly what the units see —
/// unlike sourcing it with `sh`, where an unquoted `&` in a URL ends the command.
///
/// The rules: one `NAME=value` a line; blank lines and lines starting with `#` or `;` are
/// skipped; whitespace around the name and at either end of an unquoted value is dropped;
/// `'…'` keeps everything literally; `"…"` keeps everything but `\"`, `\\`, `` \` `` and `\$`,
/// which lose their backslash; outside quotes a backslash keeps the next character; a
/// backslash at the end of a line continues the value on the next. Nothing is expanded: `$`,
/// `&` and `;` inside a value are plain characters. Pure.
package struct EnvironmentFile: Sendable, Equatable {
    /// The assignments, in file order; a name given twice keeps its last value in `values`.
    package let assignments: [(name: String, value: String)]

    /// The variables, the last assignment of a name winning.
    package var values: [String: String] {
        Dictionary(assignments.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// A line that is not an assignment, or a quote left open.
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        /// 1-based line number where the problem starts.
        package let line: Int
        /// What is wrong there (never the value, which may be a secret).
        package let reason: String

        /// Creates an error.
        package init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }

        package var description: String { "line \(line): \(reason)" }
    }

    /// Parses `text`.
    package init(parsing text: String) throws(ParseError) {
        var parser = Parser(characters: Array(text))
        assignments = try parser.parse()
    }

    /// Reads and parses the file at `path`; the error names the file and what is wrong.
    package static func load(path: String) throws(ConfigurationError) -> EnvironmentFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(problems: ["--env-file \(path): cannot be read (\(error.localizedDescription))"])
        }
        do {
            return try EnvironmentFile(parsing: text)
        } catch {
            throw ConfigurationError(problems: ["--env-file \(path): \(error)"])
        }
    }

    package static func == (lhs: EnvironmentFile, rhs: EnvironmentFile) -> Bool {
        lhs.assignments.elementsEqual(rhs.assignments) { $0.name == $1.name && $0.value == $1.value }
    }

    private struct Parser {
        let characters: [Character]
        var index = 0
        var line = 1

        var atEnd: Bool { index >= characters.count }

        mutating func next() -> Character {
            let character = characters[index]
            index += 1
            if character == "\n" { line += 1 }
            return character
        }

        mutating func skip(while predicate: (Character) -> Bool) {
            while !atEnd && predicate(characters[index]) { _ = next() }
        }

        mutating func parse() throws(ParseError) -> [(name: String, value: String)] {
            var found: [(name: String, value: String)] = []
            while !atEnd {
                skip { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
                guard !atEnd else { break }
                if characters[index] == "#" || characters[index] == ";" {
                    skip { $0 != "\n" }
                    continue
                }
                let start = line
                var name = ""
                while !atEnd && characters[index] != "=" && characters[index] != "\n" { name.append(next()) }
                name = name.trimmingCharacters(in: .whitespaces)
                guard !atEnd, characters[index] == "=" else {
                    throw ParseError(line: start, reason: "expected NAME=value")
                }
                _ = next()
                guard Self.isName(name) else {
                    throw ParseError(line: start, reason: "'\(name)' is not a variable name (letters, digits and _, not starting with a digit)")
                }
                found.append((name, try value(startingOn: start)))
            }
            return found
        }

        /// The value after `=`, up to the end of its (possibly continued) line.
        mutating func value(startingOn start: Int) throws(ParseError) -> String {
            skip { $0 == " " || $0 == "\t" }
            var value = ""
            // Unquoted whitespace is kept only when more of the value follows it.
            var pendingSpace = ""
            while !atEnd && characters[index] != "\n" {
                let character = next()
                switch character {
                case "'":
                    value += pendingSpace
                    pendingSpace = ""
                    while true {
                        guard !atEnd else { throw ParseError(line: start, reason: "a single quote is not closed") }
                        let quoted = next()
                        if quoted == "'" { break }
                        value.append(quoted)
                    }
                case "\"":
                    value += pendingSpace
                    pendingSpace = ""
                    while true {
                        guard !atEnd else { throw ParseError(line: start, reason: "a double quote is not closed") }
                        let quoted = next()
                        if quoted == "\"" { break }
                        if quoted == "\\", !atEnd {
                            let escaped = next()
                            if escaped == "\n" { continue }
                            if !"\"\\`$".contains(escaped) { value.append("\\") }
                            value.append(escaped)
                        } else {
                            value.append(quoted)
                        }
                    }
                case "\\":
                    value += pendingSpace
                    pendingSpace = ""
                    guard !atEnd else { break }
                    let escaped = next()
                    if escaped != "\n" { value.append(escaped) }
                case " ", "\t", "\r":
                    pendingSpace.append(character)
                default:
                    value += pendingSpace
                    pendingSpace = ""
                    value.append(character)
                }
            }
            return value
        }

        static func isName(_ name: String) -> Bool {
            guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        }
    }
}
