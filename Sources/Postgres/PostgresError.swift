/// The one error type of the Postgres module.
///
/// Its text never contains SQL text, bound values or passwords: `message` is the server's
/// primary message (with any quoted bound value redacted) or a description written here.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// The configuration could not be parsed or is invalid.
        case invalidConfiguration
        /// A connection could not be opened.
        case connectionFailed
        /// The connection broke (server gone, backend terminated) or was already closed.
        case connectionClosed
        /// The server rejected a statement; see `sqlState`.
        case queryFailed
        /// A bound value could not be encoded (for example a string with a NUL byte).
        case encodingFailed
        /// A column value could not be decoded into the requested Swift type.
        case decodingFailed
        /// A transaction body swallowed an error and the server rolled the transaction back.
        case transactionRolledBack
        /// Waiting for a pooled connection, or for the server's answer, passed its deadline
        /// (`leaseTimeout`, `responseTimeout`, `PostgresDeadline`).
        case timeout
        /// The pool (or listener) was closed.
        case poolClosed
        /// The caller's task was cancelled while waiting.
        case cancelled
        /// The embedded server could not be prepared, started or stopped.
        case embeddedServerFailed
        /// An argument was invalid (for example an over-long channel name).
        case invalidArgument
    }

    /// Well-known SQLSTATE values, for comparisons with `sqlState`.
    public enum SQLState {
        /// `23505`: a unique constraint was violated.
        public static let uniqueViolation = "23505"
        /// `23503`: a foreign key constraint was violated.
        public static let foreignKeyViolation = "23503"
        /// `23502`: a NOT NULL constraint was violated.
        public static let notNullViolation = "23502"
        /// `40001`: a serializable transaction could not be serialized.
        public static let serializationFailure = "40001"
        /// `40P01`: a deadlock was detected.
        public static let deadlockDetected = "40P01"
        /// `55P03`: a lock could not be taken (`NOWAIT`).
        public static let lockNotAvailable = "55P03"
        /// `57014`: the statement was cancelled (statement timeout or a cancel request).
        public static let queryCanceled = "57014"
        /// `57P01`: the backend was terminated by an administrator.
        public static let adminShutdown = "57P01"
        /// `25006`: a write was sent to a server that only reads (a standby).
        public static let readOnlySQLTransaction = "25006"
    }

    /// Whether the database is away or cannot do the work for now, so the same work may
    /// succeed later or elsewhere: no connection, a lost or given-up one, a closed pool, a
    /// statement the server cancelled or a backend it shut down (SQLSTATE class 57), or a
    /// write that reached a standby. False for statements the server refused on their merits.
    public var meansUnavailable: Bool {
        switch code {
        case .timeout, .connectionFailed, .connectionClosed, .poolClosed:
            return true
        case .queryFailed:
            guard let sqlState else { return false }
            return sqlState.hasPrefix("57") || sqlState == SQLState.readOnlySQLTransaction
        default:
            return false
        }
    }

    /// What went wrong, broadly.
    public var code: Code
    /// The SQLSTATE the server sent, when it sent one.
    public var sqlState: String?
    /// A human-readable explanation (the server's primary message for server errors).
    public var message: String
    /// The column involved, for decoding errors.
    public var column: String?
    /// The constraint involved, for integrity errors (unique, foreign key, check).
    public var constraint: String?
    /// For a pipeline (`PostgresConnection.pipeline`): the position (from 0) of the statement
    /// that failed; the statements after it did not run.
    public var statementIndex: Int?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, sqlState: String? = nil, column: String? = nil, constraint: String? = nil,
        statementIndex: Int? = nil
    ) {
        self.statementIndex = statementIndex
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.column = column
        self.constraint = constraint
    }

    /// `PostgresError.<code> [<sqlstate>] statement <n> column "…" constraint "…": <message>`.
    public var description: String {
        var text = "PostgresError.\(code.rawValue)"
        if let sqlState { text += " [\(sqlState)]" }
        if let statementIndex { text += " statement \(statementIndex)" }
        if let column { text += " column \"\(column)\"" }
        if let constraint { text += " constraint \"\(constraint)\"" }
        return text + ": " + message
    }
}
