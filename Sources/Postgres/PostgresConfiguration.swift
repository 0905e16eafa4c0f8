internal import CLibPQ
import Foundation

/// Where and how to connect: server, credentials, database and session settings.
///
/// Build it in code or parse a URL (`postgres://user:pass@host:5432/db?sslmode=disable`) or a
/// libpq key/value string (`host=… dbname=…`). Every form libpq accepts is accepted, several
/// hosts included (`postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write`,
/// `host=h1,h2 port=5432,5433`): libpq tries them in turn at every connect, so a pool follows
/// a failover by libpq's own rules. Its `description` never shows a password.
public struct PostgresConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// Host name, IP address, or a Unix socket folder (starting with `/`), or a comma-separated
    /// list of them that libpq tries in turn; `nil` uses libpq's default (the `PGHOST`
    /// variable, else the local socket).
    public var host: String?
    /// TCP port; `nil` uses libpq's default (5432). A connection string's list of ports, one
    /// per host, is kept in `parameters["port"]` as written.
    public var port: Int?
    /// User name; `nil` uses libpq's default (the OS user).
    public var user: String?
    /// Password, if the server asks for one. Never logged or described.
    public var password: String?
    /// Database name; `nil` uses libpq's default (the user name).
    public var database: String?
    /// libpq's `sslmode` (`disable`, `prefer`, `require`, `verify-full`…); `nil` for libpq's default.
    public var sslMode: String?
    /// How long to wait for a connection to open (libpq counts whole seconds, at least 2).
    public var connectTimeout: Duration
    /// The server-side limit per statement (`statement_timeout`); `nil` for the server's.
    public var statementTimeout: Duration?
    /// How long the client waits for the server's answer to one statement before it gives the
    /// connection up (`PostgresError.Code.timeout`); `nil` waits forever. Set it somewhat above
    /// `statementTimeout`, so that a live server's own timeout answers first and only a stalled
    /// one is given up on. Narrowed or lifted per task with `PostgresDeadline`.
    public var responseTimeout: Duration?
    /// Shown in `pg_stat_activity`.
    public var applicationName: String?
    /// Schemas to search for unqualified names (`search_path`), e.g. one schema per test.
    public var searchPath: [String]?
    /// Any other libpq keywords (`sslrootcert`, `options`, `target_session_attrs`…).
    public var parameters: [String: String]
    /// How many statements each connection keeps prepared (least recently used evicted with
    /// `DEALLOCATE`); 0 runs every statement with `PQexecParams`, parsed and planned each
    /// time. Turn it off behind a pooler that does not support named prepared statements
    /// (PgBouncer before 1.21 in transaction mode).
    public var statementCacheCapacity: Int

    /// Whether the session settings (statement timeout, search path, the pinned date and number
    /// formats) travel in the startup packet's `options`. Turn it off behind a pooler in
    /// transaction mode: PgBouncer refuses `options` (or, told to ignore it, drops it), and a
    /// shared server session would not keep them anyway; the role's defaults
    /// (`ALTER ROLE … SET`) apply instead. Options of the caller's own are still sent.
    public var sendsSessionSettings = true

    /// The default `statementCacheCapacity`.
    public static let defaultStatementCacheCapacity = 256

    /// Creates a configuration in code.
    public init(
        host: String? = nil,
        port: Int? = nil,
        user: String? = nil,
        password: String? = nil,
        database: String? = nil,
        sslMode: String? = nil,
        connectTimeout: Duration = .seconds(10),
        statementTimeout: Duration? = nil,
        applicationName: String? = "scorecast",
        searchPath: [String]? = nil,
        parameters: [String: String] = [:],
        statementCacheCapacity: Int = PostgresConfiguration.defaultStatementCacheCapacity,
        responseTimeout: Duration? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.sslMode = sslMode
        self.connectTimeout = connectTimeout
        self.statementTimeout = statementTimeout
        self.applicationName = applicationName
        self.searchPath = searchPath
        self.parameters = parameters
        self.statementCacheCapacity = max(0, statementCacheCapacity)
        self.responseTimeout = responseTimeout
    }

    /// Parses a `postgres://` / `postgresql://` URL.
    public init(url: String) throws(PostgresError) {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw PostgresError(.invalidConfiguration, "a database URL must start with postgres:// or postgresql://")
        }
        try self.init(connectionString: url)
    }

    /// Parses a URL or a libpq key/value string (`host=localhost port=5432 dbname=scorecast`),
    /// with libpq's own parser. `connect_timeout` and `application_name` fill their fields;
    /// unknown keywords are rejected.
    public init(connectionString: String) throws(PostgresError) {
        self.init()
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            let reason = errorMessage.map { String(cString: $0) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            let redacted = Redaction.redact(
                reason.trimmingCharacters(in: .whitespacesAndNewlines),
                secrets: Redaction.passwordCandidates(in: connectionString))
            throw PostgresError(.invalidConfiguration, "invalid connection string: \(redacted)")
        }
        defer { PQconninfoFree(options) }
        var index = 0
        while let keywordPointer = options[index].keyword {
            defer { index += 1 }
            guard let valuePointer = options[index].val else { continue }
            let keyword = String(cString: keywordPointer)
            let value = String(cString: valuePointer)
            switch keyword {
            case "host": host = value
            case "port":
                if let number = Self.portNumber(value) {
                    port = number
                } else if value.contains(","), value.split(separator: ",", omittingEmptySubsequences: false).allSatisfy({
                    $0.isEmpty || Self.portNumber(String($0)) != nil
                }) {
                    // One port per host (an empty one is libpq's default): libpq pairs them.
                    parameters["port"] = value
                } else {
                    throw PostgresError(
                        .invalidConfiguration,
                        "port must be a number from 1 to 65535, or a comma-separated list of them (one per host); got \"\(value)\"")
                }
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "sslmode": sslMode = value
            case "application_name": applicationName = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds >= 0 else {
                    throw PostgresError(.invalidConfiguration, "connect_timeout must be a whole number of seconds")
                }
                connectTimeout = .seconds(seconds)
            default: parameters[keyword] = value
            }
        }
    }

    /// A port number from 1 to 65535, written in decimal.
    private static func portNumber(_ text: String) -> Int? {
        guard let number = Int(text), (1...65535).contains(number) else { return nil }
        return number
    }

    /// A URL-like summary: user, host, port, database and settings, never the password.
    public var description: String {
        var text = "postgres://"
        if let user { text += user + (password == nil ? "" : ":********") + "@" }
        text += host ?? ""
        if let port { text += ":\(port)" }
        text += "/" + (database ?? "")
        var settings: [String] = []
        if let sslMode { settings.append("sslmode=\(sslMode)") }
        settings.append("connect_timeout=\(connectTimeout)")
        if let statementTimeout { settings.append("statement_timeout=\(statementTimeout)") }
        if let applicationName { settings.append("application_name=\(applicationName)") }
        if let searchPath { settings.append("search_path=\(searchPath.joined(separator: ","))") }
        settings.append("statement_cache_capacity=\(statementCacheCapacity)")
        if !sendsSessionSettings { settings.append("session_settings=off") }
        for key in parameters.keys.sorted() where !key.contains("password") {
            settings.append("\(key)=\(parameters[key] ?? "")")
        }
        return text + "?" + settings.joined(separator: "&")
    }

    /// The configuration as a `postgres://` URL **including the password**, for handing to a
    /// child process (e.g. in `SCORECAST_DATABASE_URL`). Never log it; use `description`.
    /// Statement timeout and search path travel in its `options` parameter.
    public var urlIncludingPassword: String {
        func encode(_ text: String) -> String {
            var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
            allowed.insert(charactersIn: "-._~")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
        var url = "postgres://"
        if let user {
            url += encode(user)
            if let password { url += ":" + encode(password) }
            url += "@"
        }
        var query: [(String, String)] = []
        if let host {
            // Socket folders and lists of hosts travel as a parameter, which libpq reads as written.
            if host.hasPrefix("/") || host.contains(",") {
                query.append(("host", host))
            } else {
                url += host.contains(":") ? "[\(host)]" : encode(host)
            }
        }
        if let port { url += ":\(port)" }
        url += "/" + encode(database ?? "")
        if let sslMode { query.append(("sslmode", sslMode)) }
        if let applicationName { query.append(("application_name", applicationName)) }
        query.append(("connect_timeout", String(connectTimeout.components.seconds)))
        var settings = parameters["options"].map { [$0] } ?? []
        if let statementTimeout { settings.append("-c " + Self.escapeOption("statement_timeout=\(Self.milliseconds(statementTimeout))")) }
        if let searchPath, !searchPath.isEmpty {
            settings.append("-c " + Self.escapeOption("search_path=" + searchPath.map(SQL.quoteIdentifier).joined(separator: ",")))
        }
        if !settings.isEmpty { query.append(("options", settings.joined(separator: " "))) }
        for key in parameters.keys.sorted() where key != "options" { query.append((key, parameters[key] ?? "")) }
        return url + "?" + query.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// The keyword/value pairs handed to `PQconnectdbParams`. Session settings travel in the
    /// startup packet's `options` (`-c name=value`), so they hold from the first statement and
    /// survive `RESET ALL`; `DateStyle`, `TimeZone` and `extra_float_digits` are pinned because
    /// the decoders rely on ISO dates and exact floats.
    func libpqParameters() -> [(String, String)] {
        var pairs: [(String, String)] = []
        for key in parameters.keys.sorted() where key != "options" {
            pairs.append((key, parameters[key] ?? ""))
        }
        if let host { pairs.append(("host", host)) }
        if let port { pairs.append(("port", String(port))) }
        if let user { pairs.append(("user", user)) }
        if let password { pairs.append(("password", password)) }
        if let database { pairs.append(("dbname", database)) }
        if let sslMode { pairs.append(("sslmode", sslMode)) }
        if let applicationName { pairs.append(("application_name", applicationName)) }
        let seconds = connectTimeout.components.seconds + (connectTimeout.components.attoseconds > 0 ? 1 : 0)
        pairs.append(("connect_timeout", String(max(1, seconds))))
        pairs.append(("client_encoding", "UTF8"))
        let options = sessionOptions
        if !options.isEmpty { pairs.append(("options", options)) }
        return pairs
    }

    /// The `options` startup value: the caller's own options, then ours (unless
    /// `sendsSessionSettings` is off).
    var sessionOptions: String {
        guard sendsSessionSettings else { return parameters["options"] ?? "" }
        var settings = ["DateStyle=ISO,MDY", "TimeZone=UTC", "IntervalStyle=postgres", "extra_float_digits=1"]
        if let statementTimeout { settings.append("statement_timeout=\(Self.milliseconds(statementTimeout))") }
        if let searchPath, !searchPath.isEmpty {
            settings.append("search_path=" + searchPath.map(SQL.quoteIdentifier).joined(separator: ","))
        }
        var options = parameters["options"].map { [$0] } ?? []
        options += settings.map { "-c " + Self.escapeOption($0) }
        return options.joined(separator: " ")
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// In `options`, spaces separate arguments unless escaped with a backslash.
    private static func escapeOption(_ value: String) -> String {
        var out = ""
        for character in value {
            if character == "\\" || character == " " { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
