import Foundation

/// One extra `postgresql.conf` line for the embedded server, `name = 'value'`, checked so that
/// it stays one line and cannot take over what scorecast itself must decide.
///
/// The name is a Postgres parameter name (`[a-z_][a-z0-9_.]*`, compared in lower case); the
/// value is written as given, inside single quotes, with `'` and `\` escaped, so any value
/// Postgres accepts can be given without quotes. A value holding a control character (a
/// newline could start a line of its own) is refused, and so are the settings that reach the
/// server or name its files: those are scorecast's (`reservedNames`).
public struct PostgresServerSetting: Sendable, Equatable, CustomStringConvertible {
    /// The parameter's name, in lower case.
    public let name: String
    /// The value as given, without quotes.
    public let value: String

    /// The settings scorecast writes itself or that would bypass what it writes: how the
    /// server is reached (its socket and folder mode are what keep other users out), its access
    /// rules, its files, and the directives that would read another file.
    public static let reservedNames: Set<String> = [
        "listen_addresses", "port", "unix_socket_directories", "unix_socket_permissions", "unix_socket_group",
        "hba_file", "ident_file", "data_directory", "config_file", "include", "include_if_exists", "include_dir",
    ]

    /// Checks `name` and `value`; the error names the setting and what is wrong with it.
    public init(name: String, value: String) throws(PostgresError) {
        let name = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard Self.isParameterName(name) else {
            throw PostgresError(.invalidArgument, "\"\(name)\" is not a Postgres setting name (letters, digits, _ and ., not starting with a digit)")
        }
        guard !Self.reservedNames.contains(name) else {
            throw PostgresError(.invalidArgument, "the embedded Postgres's \(name) is scorecast's own and cannot be set")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PostgresError(.invalidArgument, "the value of \(name) holds a newline or another control character")
        }
        self.name = name
        self.value = value.trimmingCharacters(in: .whitespaces)
    }

    /// Parses `name=value`.
    public init(assignment: String) throws(PostgresError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw PostgresError(.invalidArgument, "\"\(assignment)\" is not name=value")
        }
        try self.init(name: String(assignment[..<equals]), value: String(assignment[assignment.index(after: equals)...]))
    }

    /// Parses `name=value` items separated by `;` (values may hold commas, as lists in
    /// Postgres do); empty items are skipped.
    public static func list(_ text: String) throws(PostgresError) -> [PostgresServerSetting] {
        var settings: [PostgresServerSetting] = []
        for item in text.split(separator: ";") where !item.trimmingCharacters(in: .whitespaces).isEmpty {
            settings.append(try PostgresServerSetting(assignment: String(item)))
        }
        return settings
    }

    /// The line for `postgresql.conf`: the value single-quoted, with `'` doubled and `\`
    /// escaped (the configuration file's lexer reads backslash escapes inside quotes).
    public var configurationLine: String {
        let quoted = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''")
        return "\(name) = '\(quoted)'"
    }

    /// `name=value`, as an operator writes it.
    public var description: String { "\(name)=\(value)" }

    private static func isParameterName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0 == "." || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }
}
