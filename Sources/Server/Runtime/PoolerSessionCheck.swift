import ScorecastLogging
import Postgres

/// Behind a transaction pooler scorecast sends no session settings at connect (see
/// `PostgresConfiguration.sendsSessionSettings`): the formats its decoders rely on come from the
/// role's or server's defaults. This checks them once at start, so a server configured
/// otherwise is a clear error, not misread dates.
enum PoolerSessionCheck {
    /// The query whose one row `problem(dateStyle:intervalStyle:extraFloatDigits:)` judges.
    static let query: SQL = """
        SELECT current_setting('DateStyle') AS date_style, current_setting('IntervalStyle') AS interval_style,
               current_setting('extra_float_digits') AS extra_float_digits,
               (SELECT setting FROM pg_settings WHERE name = 'statement_timeout')::bigint AS statement_timeout_ms
        """

    /// What is wrong with a pooled session's settings, naming the fix; `nil` when they are what
    /// the decoders read (ISO dates, `postgres` intervals, exact floats).
    static func problem(dateStyle: String, intervalStyle: String, extraFloatDigits: String) -> String? {
        var wrong: [String] = []
        if !dateStyle.uppercased().hasPrefix("ISO") { wrong.append("DateStyle is '\(dateStyle)' (ALTER ROLE … SET DateStyle = 'ISO, MDY')") }
        if intervalStyle != "postgres" { wrong.append("IntervalStyle is '\(intervalStyle)' (ALTER ROLE … SET IntervalStyle = 'postgres')") }
        if (Int(extraFloatDigits) ?? 0) < 1 { wrong.append("extra_float_digits is \(extraFloatDigits) (ALTER ROLE … SET extra_float_digits = 1)") }
        guard !wrong.isEmpty else { return nil }
        return "behind the pooler (SCORECAST_DATABASE_POOLER=transaction) sessions take the role's settings, and "
            + wrong.joined(separator: "; ")
    }

    /// What to warn about when the pooled sessions' statement timeout (the role's, in
    /// milliseconds) is not the configured one, which the pooler keeps from applying.
    static func timeoutWarning(roleMilliseconds: Int64, configured: Duration) -> String? {
        let configuredMilliseconds = configured.components.seconds * 1000 + configured.components.attoseconds / 1_000_000_000_000_000
        guard roleMilliseconds != configuredMilliseconds else { return nil }
        return "behind the pooler statements time out after the role's statement_timeout (\(roleMilliseconds) ms, 0 = never), "
            + "not SCORECAST_DATABASE_STATEMENT_TIMEOUT_MS (\(configuredMilliseconds)): ALTER ROLE … SET statement_timeout = \(configuredMilliseconds)"
    }

    /// Runs the check on one pooled session; throws `invalidConfiguration` naming the fix, and
    /// logs a warning when the role's statement timeout is not `statementTimeout`.
    static func verify(_ pool: PostgresPool, statementTimeout: Duration, logger: Logger) async throws {
        let row = try await pool.query(query)[0]
        if let problem = problem(
            dateStyle: try row.decode("date_style"), intervalStyle: try row.decode("interval_style"),
            extraFloatDigits: try row.decode("extra_float_digits")) {
            throw PostgresError(.invalidConfiguration, problem)
        }
        if let warning = timeoutWarning(roleMilliseconds: try row.decode("statement_timeout_ms"), configured: statementTimeout) {
            logger.warning(warning)
        }
    }
}
