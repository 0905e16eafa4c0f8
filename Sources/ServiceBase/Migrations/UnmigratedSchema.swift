import Postgres

/// A database whose scorecast schema is missing or behind this binary, recognised once for
/// every command and service that reads it, with the one fix to name.
package enum UnmigratedSchema {
    /// SQLSTATEs of a missing table (`42P01`) or column (`42703`).
    static let states: Set<String> = ["42P01", "42703"]

    /// What is wrong, in an operator's words.
    package static let problem = "the database has no scorecast schema, or one older than this scorecast"

    /// What to do about it.
    package static let advice =
        "run `scorecast migrate` (or start `scorecast serve`, which migrates first unless SCORECAST_AUTO_MIGRATE=false)"

    /// Whether `error` says the schema is missing or behind.
    package static func matches(_ error: PostgresError) -> Bool {
        error.sqlState.map(states.contains) ?? false
    }
}
