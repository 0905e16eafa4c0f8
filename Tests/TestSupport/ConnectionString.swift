import Postgres

extension PostgresConfiguration {
    /// A libpq conninfo string for this configuration, including its search path, to hand to
    /// the built binary as `SCORECAST_DATABASE_URL` in end-to-end tests.
    public var testConnectionString: String {
        func quoted(_ value: String) -> String {
            "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        var parts: [String] = []
        if let host { parts.append("host=\(quoted(host))") }
        if let port { parts.append("port=\(port)") }
        if let user { parts.append("user=\(quoted(user))") }
        if let password { parts.append("password=\(quoted(password))") }
        if let database { parts.append("dbname=\(quoted(database))") }
        if let sslMode { parts.append("sslmode=\(sslMode)") }
        if let searchPath, !searchPath.isEmpty {
            parts.append("options=\(quoted("-c search_path=" + searchPath.joined(separator: ",")))")
        }
        return parts.joined(separator: " ")
    }
}
